import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { bullPrefix, deadLetterQueueName } from '@readpack/queues';
import { startFakeMinerU, type FakeMinerU } from '@readpack/mineru-fake';
import { assertValidPackage, connectTestRedis, containsSnippet, fixturePath, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, type Pipeline } from '../harness.js';
import { ConsumerFleet, FAST_LEASES } from '../durability/fleet.js';

let fake: FakeMinerU | undefined;
let pipeline: Pipeline | undefined;
let fleet: ConsumerFleet | undefined;

afterEach(async () => {
  await fleet?.stop();
  await pipeline?.stop();
  await fake?.close();
  fleet = pipeline = fake = undefined;
});
afterAll(async () => undefined);

async function uploadWith(base: string, name: string, fields: Record<string, string>, as = name): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([await readFile(fixturePath(name))]), as);
  const res = await fetch(`${base}/api/files`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { jobId: string }).jobId;
}

interface Manifest {
  text: string;
  origin: { engine: string };
  pages: { index: number; text: string; origin: { engine: string } }[];
  tables: { name: string; rows: string[][] }[];
  blocks?: { type: string; level?: number; page: number; html?: string; cells?: string[][]; asset?: string }[];
  assets: { sha256: string; url: string; role: string; mediaType: string }[];
  fallback?: { engine: string; reason: { code: string } };
}

async function packageOf(base: string, jobId: string): Promise<Manifest> {
  const res = await fetch(`${base}/api/files/job/${jobId}/package`);
  expect(res.status).toBe(200);
  const manifest = (await res.json()) as Manifest;
  assertValidPackage(manifest);
  return manifest;
}

const MINERU_FAST = { MINERU_RETRY_DELAY_MS: '50', MINERU_POLL_INTERVAL_MS: '50' };

describe('engine=mineru', () => {
  it('keeps headings with levels, tables as HTML and cells, figures as reachable assets, and page indexes', async () => {
    fake = await startFakeMinerU({ processingMs: 100 });
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST });
    const base = pipeline.api.url;

    const invoice = await uploadWith(base, 'REPAIR-2022-INV-001_multipage.pdf', { engine: 'mineru' });
    expect((await pollUntilTerminal(base, invoice)).at(-1)).toMatchObject({ status: 'done' });
    const pkg = await packageOf(base, invoice);
    expect(pkg.origin.engine).toBe('mineru');
    expect(pkg.pages.every((p) => p.origin.engine === 'mineru')).toBe(true);
    expect(new Set(pkg.pages.map((p) => p.index)).size).toBeGreaterThan(1);
    const headings = pkg.blocks!.filter((b) => b.type === 'heading');
    expect(headings.length).toBeGreaterThan(0);
    expect(headings.every((h) => typeof h.level === 'number' && h.level >= 1)).toBe(true);
    const table = pkg.blocks!.find((b) => b.type === 'table');
    expect(table?.html).toMatch(/<table/i);
    expect(table?.cells?.length).toBeGreaterThan(1);
    expect(pkg.tables.length).toBeGreaterThan(0);
    expect(containsSnippet(pkg.text, 'ZAVA AUTO REPAIR') || containsSnippet(pkg.text, 'Preliminary Estimate')).toBe(true);

    const figureDoc = await uploadWith(base, 'pdflatex-image.pdf', { engine: 'mineru' });
    expect((await pollUntilTerminal(base, figureDoc)).at(-1)).toMatchObject({ status: 'done' });
    const figures = (await packageOf(base, figureDoc)).assets.filter((a) => a.role === 'figure');
    expect(figures.length).toBeGreaterThan(0);
    const bytes = await fetch(figures[0]!.url);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toContain(figures[0]!.mediaType);
    expect(fake.stats.submissions).toBe(2);
  }, 60_000);

  it('with MinerU down ends failed / mineru_unavailable — never a quiet local result; replayed once MinerU is back, the whole document runs again', async () => {
    fake = await startFakeMinerU();
    const url = fake.url;
    await fake.close(); // nothing listens there any more
    fake = undefined;
    pipeline = await startPipeline({ MINERU_URL: url, ...MINERU_FAST });
    const base = pipeline.api.url;
    const jobId = await uploadWith(base, 'pdflatex-image.pdf', { engine: 'mineru' });
    const final = (await pollUntilTerminal(base, jobId, 60_000)).at(-1)!;
    expect(final).toMatchObject({ status: 'failed', error: { code: 'mineru_unavailable' } });

    // The operator brings MinerU back and retries the parked entry (what Bull Board's Retry does).
    fake = await startFakeMinerU({ port: Number(new URL(url).port) });
    const redis = connectTestRedis();
    const dlq = new Queue(deadLetterQueueName('assemble'), { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
    try {
      const parked = await waitFor(async () => (await dlq.getJobs(['failed'])).find((j) => (j.data as { payload: { jobId: string } }).payload.jobId === jobId), {
        what: 'the dead letter to be parked',
      });
      await parked.retry('failed');
      await waitFor(async () => ((await (await fetch(`${base}/api/files/job/${jobId}`)).json()) as { series: number }).series === 2 || undefined, { what: 'the replay to start' });
      const replayed = (await pollUntilTerminal(base, jobId, 60_000)).at(-1)!;
      expect(replayed).toMatchObject({ status: 'done', series: 2 });
      // Assemble alone would have had no MinerU result to assemble: the document went to MinerU again.
      expect((await packageOf(base, jobId)).origin.engine).toBe('mineru');
      expect(fake.stats.submissions).toBe(1);
    } finally {
      await dlq.close();
      await redis.quit();
    }
  }, 120_000);

  it('a 400 from MinerU fails at once with its message', async () => {
    fake = await startFakeMinerU();
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST });
    fake.behave({ fail: { status: 400, target: 'submit', count: 1, detail: 'Unsupported file type' } });
    const jobId = await uploadWith(pipeline.api.url, 'pdflatex-image.pdf', { engine: 'mineru' });
    const final = (await pollUntilTerminal(pipeline.api.url, jobId, 30_000)).at(-1)!;
    expect(final).toMatchObject({ status: 'failed', error: { code: 'mineru_rejected' } });
    expect(final.error?.message).toContain('Unsupported file type');
    expect(fake.stats.submissions).toBe(0);
  }, 60_000);

  it('429 with Retry-After backs the queue off without spending attempts, then succeeds', async () => {
    fake = await startFakeMinerU();
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST });
    fake.behave({ fail: { status: 429, target: 'submit', count: 8, retryAfter: 0 } });
    const jobId = await uploadWith(pipeline.api.url, 'pdflatex-image.pdf', { engine: 'mineru' });
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ status: 'done' });
    // 8 refusals would have exhausted 6 attempts had they counted.
    expect(fake.stats.requests.filter((r) => r.kind === 'submit' && r.status === 429)).toHaveLength(8);
    expect(fake.stats.submissions).toBe(1);
  }, 90_000);
});

describe('engine=auto', () => {
  it('with MinerU down falls back to local parsing and says so', async () => {
    fake = await startFakeMinerU();
    const url = fake.url;
    await fake.close();
    fake = undefined;
    pipeline = await startPipeline({ MINERU_URL: url, ...MINERU_FAST });
    // The invoice's text is table-like: the auto rule sends it to MinerU.
    const jobId = await uploadWith(pipeline.api.url, 'REPAIR-2022-INV-001_multipage.pdf', { engine: 'auto' });
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ status: 'done' });
    const pkg = await packageOf(pipeline.api.url, jobId);
    expect(pkg.fallback).toMatchObject({ engine: 'local', reason: { code: 'mineru_unavailable' } });
    expect(pkg.origin.engine).toBe('text-layer');
    expect(containsSnippet(pkg.text, 'ZAVA AUTO REPAIR')).toBe(true);
  }, 90_000);

  it('keeps simple documents local without asking MinerU', async () => {
    fake = await startFakeMinerU();
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST });
    const jobId = await uploadWith(pipeline.api.url, 'footnotes.docx', { engine: 'auto' });
    expect((await pollUntilTerminal(pipeline.api.url, jobId)).at(-1)).toMatchObject({ status: 'done' });
    expect((await packageOf(pipeline.api.url, jobId)).fallback).toBeUndefined();
    expect(fake.stats.submissions).toBe(0);
  }, 60_000);
});

describe('protecting MinerU', () => {
  it('3 consumer processes × concurrency 4 never have more than MINERU_MAX_CONCURRENCY tasks in flight', async () => {
    fake = await startFakeMinerU({ processingMs: 400, maxConcurrent: 10 });
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST, ...FAST_LEASES }, { consumers: false });
    fleet = new ConsumerFleet(pipeline.config, { MINERU_URL: fake.url, ...MINERU_FAST, MINERU_CONCURRENCY: '4', MINERU_MAX_CONCURRENCY: '2' });
    await fleet.start('extract', 1);
    await fleet.start('assemble', 1);
    await fleet.start('mineru', 3);
    // Eight distinct documents (the bytes differ, so no dedup).
    const jobs: string[] = [];
    const pdf = await readFile(fixturePath('pdflatex-image.pdf'));
    for (let i = 0; i < 8; i += 1) {
      const form = new FormData();
      form.append('engine', 'mineru');
      form.append('file', new Blob([pdf, Buffer.from(`\n% copy ${i}\n`)]), `copy-${i}.pdf`);
      const res = await fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: form });
      jobs.push(((await res.json()) as { jobId: string }).jobId);
    }
    for (const jobId of jobs) expect((await pollUntilTerminal(pipeline.api.url, jobId, 90_000)).at(-1)).toMatchObject({ status: 'done' });
    expect(fake.stats.submissions).toBe(8);
    expect(fake.stats.maxOutstanding).toBeLessThanOrEqual(2);
    expect(fake.stats.maxOutstanding).toBe(2); // and the cap was actually reached: the test can fail
  }, 150_000);

  it('a consumer SIGKILLed mid-poll is taken over and resumes the same MinerU task (one submission)', async () => {
    fake = await startFakeMinerU({ processingMs: 4_000 });
    pipeline = await startPipeline({ MINERU_URL: fake.url, ...MINERU_FAST, ...FAST_LEASES }, { consumers: false });
    fleet = new ConsumerFleet(pipeline.config, { MINERU_URL: fake.url, ...MINERU_FAST });
    await fleet.start('extract', 1);
    await fleet.start('assemble', 1);
    await fleet.start('mineru', 2);
    const jobId = await uploadWith(pipeline.api.url, 'pdflatex-image.pdf', { engine: 'mineru' });
    await waitFor(async () => (fake!.stats.submissions === 1 ? true : undefined), { what: 'the submission', timeoutMs: 30_000 });
    // The guarantee starts once the task id is in the job record (a kill between MinerU's answer
    // and that write can only resubmit): kill after it, mid-poll.
    const redis = connectTestRedis();
    try {
      await waitFor(async () => ((await redis.hget(`${pipeline!.config.redis.prefix}:job:${jobId}`, 'ext.mineruTaskId')) ? true : undefined), {
        what: 'the MinerU task id in the record',
      });
    } finally {
      await redis.quit();
    }
    const victim = await waitFor(async () => fleet!.runnerOf(jobId, 'mineru'), { what: 'the mineru consumer' });
    victim.child.kill('SIGKILL');
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 90_000)).at(-1)).toMatchObject({ status: 'done' });
    expect(fake.stats.submissions).toBe(1);
    const resumed = fleet.logs().filter((l) => l.jobId === jobId && l.message === 'resumed the MinerU task of an earlier attempt');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.pid).not.toBe(victim.pid);
  }, 120_000);
});
