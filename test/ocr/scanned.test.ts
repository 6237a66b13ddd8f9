import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { assertValidPackage, cjkTextPng, containsSnippet, corpusManifest, fixturePath } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, type Pipeline, type StatusBody } from '../harness.js';
import { ConsumerFleet, FAST_LEASES } from '../durability/fleet.js';

interface Page {
  index: number;
  text: string;
  origin: { engine: string };
  error?: { code: string };
  confidence?: number;
  image?: string;
  preview?: string;
  lines?: { bbox: number[] }[];
}
interface Manifest {
  text: string;
  pages: Page[];
  assets: { sha256: string; role: string; page?: number; url: string }[];
}

let pipeline: Pipeline;
beforeAll(async () => {
  pipeline = await startPipeline();
});
afterAll(async () => pipeline?.stop());

async function send(base: string, name: string, data: Uint8Array, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([data]), name);
  const res = await fetch(`${base}/api/files`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobId: string }).jobId;
}

async function finished(base: string, jobId: string): Promise<{ history: StatusBody[]; manifest: Manifest }> {
  const history = await pollUntilTerminal(base, jobId, 180_000);
  expect(history.at(-1)).toMatchObject({ status: 'done' });
  const manifest = (await (await fetch(`${base}/api/files/job/${jobId}/package`)).json()) as Manifest;
  assertValidPackage(manifest);
  return { history, manifest };
}

describe('scanned documents and images', () => {
  const scanned = corpusManifest().filter((f) => f.has_text_layer === false && f.snippets.length > 0);

  it.each(scanned.map((f) => [f.name, f] as const))('%s yields its MANIFEST snippets through render → OCR', async (name, entry) => {
    const jobId = await send(pipeline.api.url, name, await readFile(fixturePath(name)));
    const { manifest } = await finished(pipeline.api.url, jobId);
    for (const snippet of entry.snippets) expect([snippet.text, containsSnippet(manifest.text, snippet.text)]).toEqual([snippet.text, true]);
    for (const page of manifest.pages) {
      expect(page.origin.engine).toBe('ocr');
      expect(page.confidence).toBeGreaterThan(0);
      expect(manifest.assets.filter((a) => a.page === page.index).map((a) => a.role).sort()).toEqual(['page-image', 'page-preview']);
    }
    const preview = manifest.assets.find((a) => a.role === 'page-preview')!;
    expect((await fetch(preview.url)).status).toBe(200);
  }, 240_000);

  it('a mixed PDF sends only its image pages to OCR and says per page which engine read it', async () => {
    const mixed = await PDFDocument.create();
    const text = await PDFDocument.load(await readFile(fixturePath('pdflatex-image.pdf')));
    const scan = await PDFDocument.load(await readFile(fixturePath('epson.pdf')));
    const [textPage] = await mixed.copyPages(text, [0]);
    const [scanPage] = await mixed.copyPages(scan, [0]);
    mixed.addPage(textPage!);
    mixed.addPage(scanPage!);
    const jobId = await send(pipeline.api.url, 'mixed.pdf', await mixed.save());
    const { manifest } = await finished(pipeline.api.url, jobId);
    expect(manifest.pages.map((p) => p.origin.engine)).toEqual(['text-layer', 'ocr']);
    expect(containsSnippet(manifest.pages[0]!.text, 'Lorem ipsum dolor sit amet, consetetur sadipscing elitr')).toBe(true);
    expect(containsSnippet(manifest.pages[1]!.text, 'Optical character recognition')).toBe(true);
    expect(manifest.assets.filter((a) => a.role === 'page-image').map((a) => a.page)).toEqual([1]);
    // OCR line boxes are in PDF points of the page, inside it.
    const { width, height } = scan.getPage(0).getSize();
    const boxes = manifest.pages[1]!.lines!.map((l) => l.bbox);
    expect(boxes.length).toBeGreaterThan(5);
    for (const [x0, y0, x1, y1] of boxes) expect(0 <= x0! && x0! < x1! && x1! <= width && 0 <= y0! && y0! < y1! && y1! <= height).toBe(true);
  }, 180_000);

  it('reads Chinese with ocrLang=chi_sim', async () => {
    const lines = ['光学识别技术', '我们把图片变成文本'];
    const jobId = await send(pipeline.api.url, 'chinese.png', await cjkTextPng(lines), { ocrLang: 'chi_sim' });
    const { manifest } = await finished(pipeline.api.url, jobId);
    for (const line of lines) expect([line, containsSnippet(manifest.text, line)]).toEqual([line, true]);
  }, 120_000);

  it('a page that cannot be rendered gets a per-page error and does not hang its document', async () => {
    const doc = await PDFDocument.create();
    const [textPage] = await doc.copyPages(await PDFDocument.load(await readFile(fixturePath('pdflatex-image.pdf'))), [0]);
    doc.addPage(textPage!);
    doc.addPage([14_400, 14_400]); // 200 × 200 inches, no text: over MAX_IMAGE_PIXELS even at the lowest dpi
    const small = await startPipeline({ MAX_IMAGE_PIXELS: '1000000' });
    try {
      const jobId = await send(small.api.url, 'poster.pdf', await doc.save());
      const { manifest } = await finished(small.api.url, jobId);
      expect(manifest.pages[0]!.origin.engine).toBe('text-layer');
      expect(manifest.pages[1]!.error?.code).toBe('page_too_large');
      expect(containsSnippet(manifest.text, 'Stet clita kasd gubergren')).toBe(true);
    } finally {
      await small.stop();
    }
  }, 120_000);
});

describe('OCR scaled out', () => {
  let scaled: Pipeline | undefined;
  let fleet: ConsumerFleet | undefined;
  afterEach(async () => {
    await fleet?.stop();
    await scaled?.stop();
  });

  it('two OCR consumer processes share the pages of one document; the result equals one consumer\'s; progress rises page by page', async () => {
    const scan = await readFile(fixturePath('MEDRPT-2024-PAT-3847_medical_report_scan.pdf'));
    const single = await send(pipeline.api.url, 'medrpt.pdf', scan);
    const reference = (await finished(pipeline.api.url, single)).manifest;

    scaled = await startPipeline(FAST_LEASES, { consumers: false });
    fleet = new ConsumerFleet(scaled.config);
    for (const stage of ['extract', 'render', 'assemble'] as const) await fleet.start(stage, 1);
    await fleet.start('ocr', 2);
    const jobId = await send(scaled.api.url, 'medrpt.pdf', scan);
    const { history, manifest } = await finished(scaled.api.url, jobId);

    const readers = fleet.logs().filter((l) => l.jobId === jobId && l.stage === 'ocr' && l.message === 'stage finished').map((l) => l.pid);
    expect(readers).toHaveLength(3);
    expect(new Set(readers).size).toBe(2);
    expect(manifest.pages.map((p) => p.text)).toEqual(reference.pages.map((p) => p.text));
    expect(manifest.text).toBe(reference.text);

    const done = history.map((h) => h.progress.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(history.some((h) => h.status === 'processing' && h.progress.total === 3)).toBe(true);
  }, 300_000);
});
