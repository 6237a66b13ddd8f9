import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { Stage } from '@readpack/config';
import { connectTestRedis, deleteKeysWithPrefix, fixturePath, startOtlpReceiver, testRedisUrl, uniqueName, type CollectedSpan, type OtlpReceiver } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { pollUntilTerminal, upload } from '../harness.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { startApiProcess, startConsumerProcess } from '../support/readpack-processes.js';
import { jsonLines, type ServiceProcess } from '../support/service-process.js';

/*
 * Tracing across real processes: the API and one consumer process per stage, each exporting over
 * OTLP/HTTP to a local receiver. A DOCX (extract → assemble) and a two-page scanned PDF (extract →
 * render → OCR per page → assemble) must each be one trace, from the upload request in the API to
 * the terminal write in assemble, with every parent link where the job data carried it.
 */

const STAGES_RUN: Stage[] = ['extract', 'render', 'ocr', 'assemble'];
const prefix = uniqueName('trace');
let dataDir: string;
let receiver: OtlpReceiver;
let api: ServiceProcess;
let consumers: ServiceProcess[] = [];
let baseUrl: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-trace-'));
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const vars = { REDIS_URL: testRedisUrl(), READPACK_PREFIX: prefix, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  api = await startApiProcess({ ...vars, PORT: String(port) });
  consumers = await Promise.all(STAGES_RUN.map((stage) => startConsumerProcess(stage, vars)));
  await waitForHealthy(baseUrl, { timeoutMs: 60_000, describe: () => api.outputTail() });
}, 90_000);

afterAll(async () => {
  await Promise.all([api, ...consumers].filter(Boolean).map((p) => p.stop('SIGKILL', 5_000)));
  await receiver?.close();
  const redis = connectTestRedis();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** An image-only PDF of `pages` pages, each the corpus's OCR test image: every page goes to render → OCR. */
async function scannedPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(await readFile(fixturePath('testocr.png')));
  for (let i = 0; i < pages; i++) doc.addPage([png.width, png.height]).drawImage(png, { x: 0, y: 0, width: png.width, height: png.height });
  return doc.save();
}

async function uploaded(name: string, data: Uint8Array): Promise<string> {
  const res = await upload(baseUrl, [{ name, data }]);
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  const history = await pollUntilTerminal(baseUrl, jobId, 240_000);
  expect(history.at(-1)?.status).toBe('done');
  return jobId;
}

/** The trace of one job: the one whose root `upload` span names the job. */
function traceOf(spans: CollectedSpan[], jobId: string): CollectedSpan[] {
  const roots = spans.filter((s) => s.name === 'upload' && s.attributes['readpack.job.id'] === jobId);
  expect(roots).toHaveLength(1);
  return spans.filter((s) => s.traceId === roots[0]!.traceId);
}

const named = (trace: CollectedSpan[], name: string) => trace.filter((s) => s.name === name);
const byId = (trace: CollectedSpan[]) => new Map(trace.map((s) => [s.spanId, s]));

/** What every trace must be: one root (the upload, in the API), every other span's parent present, all ended in order. */
function expectWellFormed(trace: CollectedSpan[]): void {
  const ids = byId(trace);
  const roots = trace.filter((s) => !s.parentSpanId);
  expect(roots.map((s) => [s.name, s.service])).toEqual([['upload', 'readpack-api']]);
  // Only ended spans are exported: a parent that never ended would be missing here.
  expect(trace.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
  expect(trace.filter((s) => s.endMs < s.startMs).map((s) => s.name)).toEqual([]);
  expect(new Set(trace.map((s) => s.spanId)).size).toBe(trace.length);
}

function parentOf(trace: CollectedSpan[], span: CollectedSpan): CollectedSpan {
  const parent = byId(trace).get(span.parentSpanId ?? '');
  if (!parent) throw new Error(`no parent for ${span.name}`);
  return parent;
}

describe('tracing across processes', () => {
  it('joins the upload and every stage of a DOCX and of a scanned PDF into one trace each, with the right parents', async () => {
    const docxJob = await uploaded('word_sample.docx', await readFile(fixturePath('word_sample.docx')));
    const pdfJob = await uploaded('scan.pdf', await scannedPdf(2));
    // A graceful stop exports what each process still holds (SIGTERM → close → tracing shutdown).
    const exits = await Promise.all([api, ...consumers].map((p) => p.stop('SIGTERM', 30_000)));
    expect(exits.map((e) => e.code)).toEqual(exits.map(() => 0));
    expect(receiver.rejected()).toEqual([]);
    const spans = receiver.spans();

    // DOCX: the API's spans, then extract (parse, writes, fan-out with no children) and assemble.
    const docx = traceOf(spans, docxJob);
    expectWellFormed(docx);
    expect(new Set(docx.map((s) => s.service))).toEqual(new Set(['readpack-api', 'readpack-worker-extract', 'readpack-worker-assemble']));
    for (const name of ['upload.receive', 'upload.store', 'admission', 'state.create', 'queue.enqueue', 'queue.wait', 'state.start', 'parse', 'asset.write', 'queue.fan_out', 'queue.fan_in', 'assemble.build', 'package.write', 'state.terminal']) {
      expect([name, named(docx, name).length > 0]).toEqual([name, true]);
    }
    const [root] = named(docx, 'upload');
    for (const name of ['upload.receive', 'upload.store', 'admission', 'state.create', 'queue.enqueue']) expect([name, parentOf(docx, named(docx, name)[0]!).spanId]).toEqual([name, root!.spanId]);
    const enqueue = named(docx, 'queue.enqueue')[0]!;
    // The extract job's wait and handler hang below the API's enqueue: the context crossed Redis.
    for (const name of ['queue.wait', 'stage.extract']) {
      const inExtract = docx.filter((s) => s.name === name && s.attributes['readpack.stage'] === 'extract');
      expect(inExtract.map((s) => s.parentSpanId)).toEqual([enqueue.spanId]);
    }
    const extract = named(docx, 'stage.extract')[0]!;
    expect(extract.service).toBe('readpack-worker-extract');
    expect(parentOf(docx, named(docx, 'parse')[0]!).spanId).toBe(extract.spanId);
    const fanOut = named(docx, 'queue.fan_out')[0]!;
    expect(fanOut.parentSpanId).toBe(extract.spanId);
    const assemble = named(docx, 'stage.assemble')[0]!;
    expect([assemble.service, assemble.parentSpanId]).toEqual(['readpack-worker-assemble', fanOut.spanId]);
    for (const name of ['assemble.build', 'package.write', 'state.terminal']) expect([name, named(docx, name)[0]!.parentSpanId]).toEqual([name, assemble.spanId]);
    // Log lines written inside a span name it: the extract consumer's 'stage started' line leads to its handler span.
    const started = jsonLines(consumers[0]!.stdoutLines()).filter((l) => l.jobId === docxJob && l.message === 'stage started');
    expect(started.map((l) => [l.traceId, l.spanId])).toEqual([[extract.traceId, extract.spanId]]);
    // Identifiers only: the tenant and job, never the file's name.
    expect(docx.every((s) => !Object.values(s.attributes).includes('word_sample.docx'))).toBe(true);

    // Scanned PDF: every stage process is in the trace; each page's render and OCR jobs hang below the fan-out.
    const pdf = traceOf(spans, pdfJob);
    expectWellFormed(pdf);
    expect(new Set(pdf.map((s) => s.service))).toEqual(new Set(['readpack-api', ...STAGES_RUN.map((s) => `readpack-worker-${s}`)]));
    const pdfFanOut = named(pdf, 'queue.fan_out');
    expect(pdfFanOut).toHaveLength(1);
    expect(pdfFanOut[0]!.attributes['readpack.children']).toBe(2);
    for (const stage of ['render', 'ocr', 'assemble']) {
      const handlers = named(pdf, `stage.${stage}`);
      // Flow parents (a page's OCR, assemble) wait for their children first: fan-in, not queue wait.
      const waitName = stage === 'render' ? 'queue.wait' : 'queue.fan_in';
      const waits = pdf.filter((s) => s.name === waitName && s.attributes['readpack.stage'] === stage);
      const count = stage === 'assemble' ? 1 : 2;
      expect([stage, handlers.length, waits.length]).toEqual([stage, count, count]);
      for (const span of [...handlers, ...waits]) expect([stage, span.name, span.parentSpanId]).toEqual([stage, span.name, pdfFanOut[0]!.spanId]);
      expect(handlers.every((s) => s.service === `readpack-worker-${stage}`)).toBe(true);
    }
    expect(named(pdf, 'stage.render').map((s) => s.attributes['readpack.page']).sort()).toEqual([0, 1]);
    for (const [leaf, stage] of [['render.page', 'stage.render'], ['ocr.page', 'stage.ocr']] as const) {
      const leaves = named(pdf, leaf);
      expect(leaves).toHaveLength(2);
      for (const span of leaves) expect([leaf, parentOf(pdf, span).name]).toEqual([leaf, stage]);
    }
    // Waits are recorded with the job's real times: they start at the enqueue, not at the pickup.
    for (const wait of [...named(pdf, 'queue.wait'), ...named(pdf, 'queue.fan_in')]) expect(wait.startMs).toBeLessThanOrEqual(parentOf(pdf, wait).endMs + 1);
    // A page's OCR job starts only after its render job ended: its fan-in covers the render.
    for (const fanIn of named(pdf, 'queue.fan_in').filter((s) => s.attributes['readpack.stage'] === 'ocr')) {
      const render = named(pdf, 'stage.render').find((s) => s.attributes['readpack.page'] === fanIn.attributes['readpack.page'])!;
      expect(fanIn.endMs).toBeGreaterThanOrEqual(render.endMs - 1);
    }
  }, 400_000);
});
