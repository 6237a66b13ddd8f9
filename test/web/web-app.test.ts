import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startFakeMinerU, type FakeMinerU } from '@readpack/mineru-fake';
import { connectTestRedis, fixturePath } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, type Pipeline } from '../harness.js';
import { ARTIFACTS_DIR, clearArtifacts, ensureWebBuild, launchChromium, screenshot } from './browser.js';

/**
 * The web app at `/` in a real headless Chromium against the real service (API + every consumer):
 * a batch of three files through the file picker, the bars to 100 %, a failure in words, the
 * viewer (outline jump, table, figure, Markdown, downloads), a phone-width screen, the keyboard.
 * Screenshots of each step land in test-artifacts/web/.
 *
 * Headings and figures placed in the text come from MinerU's layout today (the local DOCX and PDF
 * parsers give paragraphs, tables and loose images), so the outline and figure steps read a PDF
 * through engine=mineru, chosen in the form, against the repository's MinerU stand-in
 * (@readpack/mineru-fake, canned output for that PDF).
 */
const DOCX = fixturePath('word_sample.docx'); // a table and an embedded PNG
const PDF = fixturePath('pdflatex-image.pdf');
const BROKEN = fixturePath('invalid.pdf'); // fails with corrupt_document
const LAID_OUT = fixturePath('REPAIR-2022-INV-001_multipage.pdf'); // via MinerU: headings, tables, figures, 3 pages

let fake: FakeMinerU;
let pipeline: Pipeline;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuild();
  clearArtifacts();
  // Slow enough that a poll sees the job mid-way, so the bar's movement is observed, not assumed.
  fake = await startFakeMinerU({ processingMs: 2_000 });
  pipeline = await startPipeline({ MINERU_URL: fake.url, MINERU_RETRY_DELAY_MS: '50', MINERU_POLL_INTERVAL_MS: '50' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pipeline?.stop();
  await fake?.close();
}, 30_000);

/** Console errors include CSP refusals: a page that works only with a looser policy fails here. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  return problems;
}

async function jobCount(prefix: string): Promise<number> {
  const redis = connectTestRedis();
  try {
    let cursor = '0';
    let count = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:job:*`, 'COUNT', 500);
      cursor = next;
      count += keys.length;
    } while (cursor !== '0');
    return count;
  } finally {
    await redis.quit();
  }
}

/**
 * Whether an `<img>` ends up showing a picture (decoded, not broken). Playwright's string
 * predicates are eval'd inside the page, which the app's CSP forbids; a function is not.
 */
async function imageLoaded(image: Locator): Promise<boolean> {
  await image.waitFor();
  return image.evaluate(async (element) => {
    const img = element as unknown as { decode(): Promise<void>; naturalWidth: number };
    // A blob src arrives a moment after the element; decode() waits for it (and rejects if broken).
    for (let tries = 0; tries < 50 && img.naturalWidth === 0; tries += 1) {
      await img.decode().then(
        () => undefined,
        () => new Promise((resolve) => setTimeout(resolve, 100)),
      );
    }
    return img.naturalWidth > 0;
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * WCAG 2.1 A/AA violations axe-core finds on the page as it is now (labels, names, contrast,
 * landmarks, ARIA). Evaluated over the DevTools protocol, so the app's CSP needs no exception.
 */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
  );
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

function formWith(fixture: string, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([readFileSync(fixturePath(fixture))]), fixture);
  return form;
}

/** Horizontal overflow of the whole page, in CSS pixels (0: nothing sticks out). */
function overflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

describe('web app', () => {
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    problems = watchProblems(page);
  });

  afterAll(async () => {
    await context?.close();
  });

  const row = (name: string) => page.locator('.job', { hasText: name });

  it('uploads a batch of three by the file picker, once on a double-click; the bars reach 100 % and the failure says why', async () => {
    const batchPosts: string[] = [];
    const statusReads: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (request.method() === 'POST' && path === '/api/files/batch') batchPosts.push(request.url());
      if (request.method() === 'GET' && path.startsWith('/api/files/job/')) statusReads.push(path);
    });

    const response = await page.goto(`${pipeline.api.url}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-served-by']).toBeTruthy();
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { level: 1, name: 'Read documents' }).waitFor();
    await screenshot(page, '01-upload-page');

    // Three files through the picker (its label is what a person clicks).
    await page.getByLabel('Choose documents').setInputFiles([DOCX, PDF, BROKEN]);
    expect(await page.locator('.chosen-files li').count()).toBe(3);
    await screenshot(page, '02-files-chosen');

    // A double-click on Upload sends one batch: one request, three jobs.
    await page.getByRole('button', { name: 'Upload' }).dblclick();
    await page.locator('.job').nth(2).waitFor();

    // Every bar ends at 100 %, or with its failure in words.
    await page.locator('.job[data-status="done"], .job[data-status="failed"]').nth(2).waitFor({ timeout: 90_000 });
    expect(batchPosts).toHaveLength(1);
    expect(await jobCount(pipeline.config.redis.prefix)).toBe(3);
    // Without an API key the page follows each job's event stream instead of polling it.
    expect(statusReads.filter((p) => p.endsWith('/events'))).toHaveLength(3);
    expect(statusReads.filter((p) => !p.endsWith('/events'))).toEqual([]);
    for (const name of ['word_sample.docx', 'pdflatex-image.pdf']) {
      expect(await row(name).locator('.job-state').textContent()).toContain('100 %');
      expect(await row(name).getByRole('progressbar').getAttribute('value')).toBe('100');
    }
    const failed = row('invalid.pdf');
    expect(await failed.getAttribute('data-status')).toBe('failed');
    const failure = (await failed.locator('.job-failure').textContent()) ?? '';
    expect(failure).toContain('The file is damaged');
    expect(failure).toContain('What to do:');
    expect(failure).toContain('corrupt_document');
    await screenshot(page, '03-batch-done-and-failure');
    expect(await accessibilityViolations(page)).toEqual([]);
    await failed.screenshot({ path: join(ARTIFACTS_DIR, '04-failure-reason.png') });

    // A reload keeps the list (session storage) and reads each file's state again.
    await page.reload();
    await page.locator('.job[data-status="done"], .job[data-status="failed"]').nth(2).waitFor({ timeout: 10_000 });
    expect(await page.locator('.job').count()).toBe(3);
    expect(await row('invalid.pdf').locator('.job-failure').textContent()).toContain('The file is damaged');
  }, 120_000);

  it('shows the DOCX: its table, its picture, the Markdown, and both downloads', async () => {
    await row('word_sample.docx').getByRole('link', { name: /Open/ }).click();
    await page.getByRole('heading', { level: 1, name: 'word_sample.docx' }).waitFor();
    const table = page.locator('.doc table').first();
    expect(await table.locator('td').count()).toBeGreaterThan(0);
    expect(await table.textContent()).toContain('Blueberry, Strawberry, Cranberry');
    expect(await imageLoaded(page.locator('.doc figure img').first())).toBe(true);
    await screenshot(page, '05-viewer-docx', false);
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Markdown' }).click();
    expect(await page.getByRole('button', { name: 'Markdown' }).getAttribute('aria-pressed')).toBe('true');
    const markdown = page.locator('#doc-markdown');
    expect(await markdown.isVisible()).toBe(true);
    expect(await page.locator('#doc-blocks').isVisible()).toBe(false);
    expect(await markdown.textContent()).toContain('| Berries |');
    await screenshot(page, '06-markdown', false);

    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download package (JSON)' }).click()]);
    expect(jsonDownload.suggestedFilename()).toBe('word_sample.package.json');
    const manifest = JSON.parse(await readFile((await jsonDownload.path())!, 'utf8')) as { schemaVersion: number; body: unknown[] };
    expect(manifest.schemaVersion).toBe(2);
    expect(manifest.body.length).toBeGreaterThan(0);
    const [mdDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Markdown' }).click()]);
    expect(mdDownload.suggestedFilename()).toBe('word_sample.md');
    expect(await readFile((await mdDownload.path())!, 'utf8')).toBe(await markdown.textContent());
  }, 60_000);

  it('reads a laid-out PDF with engine MinerU: the bar moves, the outline jumps to a heading, tables and figures in place', async () => {
    await page.getByRole('link', { name: /Your documents/ }).click();
    await page.getByLabel('Engine').selectOption('mineru');
    await page.getByLabel('Choose documents').setInputFiles([LAID_OUT]);
    await page.getByRole('button', { name: 'Upload' }).click();
    const job = row('REPAIR-2022-INV-001_multipage.pdf');

    // Seen mid-way: the bar stands between 0 and 100 and says which stage it is in.
    await job.locator('.job-state', { hasText: 'MinerU' }).waitFor({ timeout: 30_000 });
    const midway = Number(await job.getByRole('progressbar').getAttribute('value'));
    expect(midway).toBeGreaterThan(0);
    expect(midway).toBeLessThan(100);
    expect(await job.locator('.job-state').textContent()).toMatch(/%$/);
    await screenshot(page, '07-progress-moving');
    await page.locator('.job[data-status="done"]', { hasText: 'REPAIR-2022' }).waitFor({ timeout: 60_000 });
    expect(await job.locator('.job-state').textContent()).toContain('100 %');

    await job.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('heading', { level: 1, name: 'REPAIR-2022-INV-001_multipage.pdf' }).waitFor();
    await screenshot(page, '08-viewer-mineru', false);
    expect(await accessibilityViolations(page)).toEqual([]);

    // The outline's last heading: a click scrolls it into view and gives it the focus.
    const entries = page.getByRole('navigation', { name: 'Outline' }).getByRole('button');
    expect(await entries.count()).toBeGreaterThan(2);
    const last = entries.last();
    const title = ((await last.textContent()) ?? '').trim();
    await last.click();
    expect(await last.getAttribute('aria-current')).toBe('location');
    const target = page.locator('.doc .doc-heading', { hasText: title }).last();
    const box = await target.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(900);
    expect(await page.evaluate<number>('window.scrollY')).toBeGreaterThan(0);
    expect(await target.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await screenshot(page, '09-jumped-to-heading', false);

    // Tables as tables, figures as pictures inside the page they belong to.
    const page2 = page.getByRole('region', { name: 'Page 2' });
    expect(await page2.locator('table').count()).toBeGreaterThan(0);
    expect(await page2.locator('th, td').count()).toBeGreaterThan(3);
    const figure = page2.locator('figure img').first();
    expect(await imageLoaded(figure)).toBe(true);
    expect(await figure.getAttribute('src')).toMatch(/^blob:/);
    await page2.scrollIntoViewIfNeeded();
    await page2.locator('.page-label').evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot(page, '10-table-and-figure', false);

    expect(problems).toEqual([]);
  }, 120_000);

  it("shows an OCR'd page's image beside the text read from it", async () => {
    const accepted = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: formWith('testocr.png') });
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 90_000)).at(-1)?.status).toBe('done');

    await page.goto(`${pipeline.api.url}/#/jobs/${jobId}`);
    await page.getByRole('heading', { level: 1, name: 'testocr.png' }).waitFor();
    const scanned = page.getByRole('region', { name: 'Page 1' });
    const picture = scanned.locator('.page-image img');
    expect(await imageLoaded(picture)).toBe(true);
    const text = scanned.locator('.page-blocks');
    expect(await text.textContent()).toMatch(/quick brown dog/i);
    // Beside, not above: the picture's column ends where the text's begins.
    const [left, right] = [await picture.boundingBox(), await text.boundingBox()];
    expect(left!.x + left!.width).toBeLessThanOrEqual(right!.x);
    await screenshot(page, '11-ocr-page-beside-text', false);
    expect(problems).toEqual([]);
  }, 120_000);

  it('fits a phone-width screen and is usable by keyboard', async () => {
    const accepted = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: formWith('REPAIR-2022-INV-001_multipage.pdf', { engine: 'mineru' }) });
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    await pollUntilTerminal(pipeline.api.url, jobId, 60_000);

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      const phoneProblems = watchProblems(small);
      await small.goto(`${pipeline.api.url}/`);
      await small.getByRole('heading', { level: 1, name: 'Read documents' }).waitFor();
      expect(await overflow(small)).toBeLessThanOrEqual(0);
      await screenshot(small, '12-phone-upload');

      // The picker and the options have labels, and Tab reaches the Upload button from the top.
      expect(await small.getByLabel('Choose documents').getAttribute('type')).toBe('file');
      expect(await small.getByLabel('Engine').count()).toBe(1);
      expect(await small.getByLabel('OCR language').count()).toBe(1);
      const button = small.getByRole('button', { name: 'Upload' });
      let reached = false;
      for (let presses = 0; presses < 15 && !reached; presses += 1) {
        await small.keyboard.press('Tab');
        reached = await button.evaluate((element) => element === element.ownerDocument.activeElement);
      }
      expect(reached).toBe(true);
      // Enter on it with nothing chosen: the form says what is missing, as an alert.
      await small.keyboard.press('Enter');
      expect(await small.getByRole('alert').textContent()).toContain('Choose at least one document');

      // Files dropped on the zone join the batch like picked ones.
      const dropped = await small.evaluateHandle(
        "(() => { const t = new DataTransfer(); t.items.add(new File(['dropped text'], 'dropped-note.txt', { type: 'text/plain' })); return t; })()",
      );
      await small.locator('.drop-zone').dispatchEvent('drop', { dataTransfer: dropped });
      expect(await small.locator('.chosen-files li').textContent()).toContain('dropped-note.txt');

      await small.goto(`${pipeline.api.url}/#/jobs/${jobId}`);
      await small.getByRole('heading', { level: 1, name: 'REPAIR-2022-INV-001_multipage.pdf' }).waitFor();
      expect(await imageLoaded(small.locator('.doc figure img').first())).toBe(true);
      expect(await overflow(small)).toBeLessThanOrEqual(0);
      await screenshot(small, '13-phone-viewer');
      expect(await accessibilityViolations(small)).toEqual([]);
      expect(phoneProblems).toEqual([]);
    } finally {
      await phone.close();
    }
  }, 120_000);
});

describe('web app with API keys configured', () => {
  const KEY = 'web-test-key-0123456789abcdef';
  let keyed: Pipeline;

  beforeAll(async () => {
    keyed = await startPipeline({ API_KEYS: `${KEY}:webtenant` });
  }, 60_000);

  afterAll(async () => {
    await keyed?.stop();
  }, 30_000);

  it('asks for the key, keeps it in session storage, and sends it with uploads, polls and images', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      const problems = watchProblems(page);
      const unauthenticated: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/') && request.headers().authorization !== `Bearer ${KEY}`) unauthenticated.push(request.url());
      });
      await page.goto(`${keyed.api.url}/`);
      const field = page.getByLabel('API key');
      expect(await field.getAttribute('type')).toBe('password');
      await field.fill(KEY);
      await field.press('Tab'); // `change` fires when the field is left
      expect(await page.evaluate<string | null>("sessionStorage.getItem('readpack.apiKey')")).toBe(KEY);

      await page.getByLabel('Choose documents').setInputFiles([DOCX]);
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.locator('.job[data-status="done"]').waitFor({ timeout: 60_000 });
      await page.locator('.job').getByRole('link', { name: /Open/ }).click();
      await page.getByRole('heading', { level: 1, name: 'word_sample.docx' }).waitFor();
      expect(await imageLoaded(page.locator('.doc figure img').first())).toBe(true);
      await screenshot(page, '14-api-key');
      expect(unauthenticated).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
