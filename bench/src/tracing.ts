/**
 * `npm run bench:tracing`: what tracing costs on the hot path. Off (no OTLP endpoint), every
 * span helper returns after one flag check: measured against the bare call and against the
 * OpenTelemetry API's own no-op tracer (what instrumented code costs without our check). On, the
 * same span with the SDK registered and its OTLP/HTTP exporter batching to a local receiver.
 * Rounds are interleaved; each figure is the median over rounds of ns per call.
 *
 * Then where the time of a job goes: the API and one consumer process per stage export to a
 * local OTLP receiver while documents are uploaded one at a time (each alone in the pipeline),
 * and whereTheTimeGoes (packages/testing) summarises their traces.
 *
 * Results go to the `bench:tracing` section of docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { PDFDocument } from 'pdf-lib';
import { fixturePath, renderTimeTable, startOtlpReceiver, whereTheTimeGoes } from '@readpack/testing';
import { ATTR, currentTraceCarrier, inSpan, SPAN, startTracing } from '@readpack/tracing';
import { benchRedis, cleanups, describeMachine, freePort, runBench, stopOnCleanUp, writeBenchSection } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS_OFF = Number(process.env.BENCH_CALLS ?? 1_000_000);
const CALLS_ON = Math.max(1, Math.floor(CALLS_OFF / 20));

const work = async () => 1;
const attributes = () => ({ [ATTR.jobId]: 'job_0123456789abcdef', [ATTR.stage]: 'extract', [ATTR.page]: 3 });

interface Case {
  name: string;
  calls: number;
  run: () => Promise<unknown> | unknown;
}

async function nsPerCall(c: Case): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < c.calls; i++) await c.run();
  return Number(process.hrtime.bigint() - started) / c.calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median ns per call of each case; `spread` is half the range over rounds of each, the run's noise. */
async function measure(cases: Case[]): Promise<Map<string, number> & { spread: Map<string, number> }> {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) await nsPerCall({ ...c, calls: Math.ceil(c.calls / 10) }); // warm-up: JIT
  for (let round = 0; round < ROUNDS; round++) for (const c of cases) samples.get(c.name)!.push(await nsPerCall(c));
  const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
  return Object.assign(medians, { spread: new Map([...samples].map(([name, values]) => [name, (Math.max(...values) - Math.min(...values)) / 2])) });
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER_STAGES = ['extract', 'render', 'ocr', 'assemble'] as const;

/** An image-only PDF of `pages` pages of the corpus's OCR test image: every page goes through render → OCR. */
async function scannedPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(readFileSync(fixturePath('testocr.png')));
  for (let i = 0; i < pages; i++) doc.addPage([png.width, png.height]).drawImage(png, { x: 0, y: 0, width: png.width, height: png.height });
  return doc.save();
}

async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await fetch(url).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function untilDone(base: string, jobId: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const { status } = (await (await fetch(`${base}/api/files/job/${jobId}`)).json()) as { status: string };
    if (status === 'done') return;
    if (status === 'failed' || Date.now() > deadline) throw new Error(`job ${jobId}: ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Real jobs through real processes, traced: the Markdown breakdown of where their time went. */
async function whereJobsSpendTime(): Promise<string> {
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const redis = await benchRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'readpack-bench-tracing-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, REDIS_URL: redis.url, READPACK_PREFIX: `benchtrace${process.pid}`, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  const stops = [
    stopOnCleanUp(spawn(process.execPath, [join(REPO_ROOT, 'apps/api/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] })),
    ...CONSUMER_STAGES.map((stage) => stopOnCleanUp(spawn(process.execPath, [join(REPO_ROOT, 'apps/worker/dist/main.js'), stage], { env, stdio: ['ignore', 'ignore', 'inherit'] }))),
  ];
  await waitForHttp(`${base}/healthz`);
  const documents: { name: string; data: Uint8Array }[] = [
    ...['word_sample.docx', 'word_tables.docx', 'footnotes.docx', 'jo.pdf'].map((name) => ({ name, data: readFileSync(fixturePath(name)) })),
    { name: 'scan-2-pages.pdf', data: await scannedPdf(2) },
    { name: 'scan-3-pages.pdf', data: await scannedPdf(3) },
  ];
  const jobIds = new Set<string>();
  for (const document of documents) {
    const form = new FormData();
    form.append('file', new Blob([document.data]), document.name);
    const res = await fetch(`${base}/api/files`, { method: 'POST', body: form });
    if (res.status !== 202) throw new Error(`upload ${document.name}: ${res.status} ${await res.text()}`);
    const { jobId } = (await res.json()) as { jobId: string };
    await untilDone(base, jobId);
    jobIds.add(jobId);
  }
  // A graceful stop exports every span the processes still hold.
  for (const stop of stops) await stop();
  const spans = receiver.spans();
  const traceIds = new Set(spans.filter((s) => s.name === SPAN.upload && jobIds.has(String(s.attributes[ATTR.jobId]))).map((s) => s.traceId));
  if (traceIds.size !== jobIds.size) throw new Error(`${traceIds.size} traces for ${jobIds.size} jobs`);
  const breakdown = whereTheTimeGoes(spans, { traceIds });
  const top = breakdown.rows.filter((r) => r.name !== SPAN.upload && !r.name.startsWith('stage.')).slice(0, 3);
  return [
    `**Where the time of a job goes**: ${documents.map((d) => `\`${d.name}\``).join(', ')} uploaded one at a time to the API and one consumer process per stage (${CONSUMER_STAGES.join(', ')}), every process exporting to a local OTLP receiver; \`whereTheTimeGoes\` over their ${breakdown.traces} traces.`,
    '',
    renderTimeTable(breakdown),
    '',
    `Below the stage spans, most time went to ${top.map((r) => `\`${r.name}\` (${(r.share * 100).toFixed(1)} % of end-to-end)`).join(', ')}.`,
  ].join('\n');
}

const ns = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const noopTracer = trace.getTracer('readpack-bench');
  const off = await measure([
    { name: 'bare', calls: CALLS_OFF, run: () => work() },
    { name: 'inSpan off', calls: CALLS_OFF, run: () => inSpan(SPAN.parse, { attributes: attributes() }, work) },
    {
      name: 'api no-op',
      calls: CALLS_OFF,
      run: () =>
        noopTracer.startActiveSpan(SPAN.parse, { attributes: attributes() }, async (span) => {
          try {
            return await work();
          } finally {
            span.end();
          }
        }),
    },
    { name: 'carrier off', calls: CALLS_OFF, run: () => currentTraceCarrier() },
  ]);

  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const tracing = await startTracing({ endpoint: receiver.url }, 'readpack-bench');
  let made = 0;
  const on = await measure([
    { name: 'bare', calls: CALLS_ON, run: () => work() },
    { name: 'inSpan on', calls: CALLS_ON, run: () => (made++, inSpan(SPAN.parse, { attributes: attributes() }, work)) },
    { name: 'carrier on', calls: CALLS_ON, run: () => (made++, inSpan(SPAN.enqueue, {}, async () => currentTraceCarrier())) },
  ]);
  await tracing.shutdown();
  const exported = receiver.spans().length;
  const loadAfter = loadavg()[0]!;
  const jobs = await whereJobsSpendTime();

  const bare = off.get('bare')!;
  const rows = [
    ['bare `await work()`', 'off', bare, 0],
    ['`inSpan(…)` (Readpack helper, tracing off)', 'off', off.get('inSpan off')!, off.get('inSpan off')! - bare],
    ['`tracer.startActiveSpan(…)` on the API\'s no-op tracer', 'off', off.get('api no-op')!, off.get('api no-op')! - bare],
    ['`await currentTraceCarrier()` (what every enqueue calls)', 'off', off.get('carrier off')!, off.get('carrier off')! - bare],
    ['bare `await work()`', 'on', on.get('bare')!, 0],
    ['`inSpan(…)`, SDK + OTLP/HTTP exporter batching to a local receiver', 'on', on.get('inSpan on')!, on.get('inSpan on')! - on.get('bare')!],
    ['`inSpan(…)` + `currentTraceCarrier()` (an enqueue)', 'on', on.get('carrier on')!, on.get('carrier on')! - on.get('bare')!],
  ] as const;
  const table = ['| call | tracing | ns per call | ns over the bare call |', '| --- | --- | ---: | ---: |', ...rows.map(([what, mode, value, over]) => `| ${what} | ${mode} | ${ns(value)} | ${ns(over)} |`)];
  const offCost = off.get('inSpan off')! - bare;
  const noise = off.spread.get('bare')!;
  const noopCost = off.get('api no-op')! - bare;
  const onCost = on.get('inSpan on')! - on.get('bare')!;
  const bareOn = on.get('bare')!;
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${describeMachine()}. Load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end.`,
    `${ROUNDS} interleaved rounds of ${CALLS_OFF.toLocaleString('en')} calls (tracing off) and ${CALLS_ON.toLocaleString('en')} calls (tracing on) in one process; medians of ns per call.`,
    `"Bare" is an \`async\` function awaited in a loop; every span carries three attributes, as the stage spans do.`,
    '',
    ...table,
    '',
    `Tracing off, a span through Readpack's helper costs ${offCost <= noise ? `nothing measurable over the bare call (${ns(offCost)} ns, within the run's noise of ±${ns(noise)} ns on the bare call)` : `${ns(offCost)} ns over the bare call (noise ±${ns(noise)} ns)`}, against ${ns(noopCost)} ns through the OpenTelemetry API's no-op tracer` +
      `${noopCost > 0 && offCost < noopCost ? ` (the flag check saves ${ns(noopCost - offCost)} ns)` : ''}; no SDK module is loaded (test/tracing/no-sdk.test.ts).`,
    `Tracing on, the bare call took ${ns(bareOn)} ns instead of ${ns(bare)} (${(bareOn / bare).toFixed(1)}×; measured after the off cases, not interleaved with them)` +
      (bareOn / bare > 1.5 ? ': the SDK registers an AsyncLocalStorage context manager, whose promise hooks make every `await` of the process dearer.' : '.'),
    `A span then costs ${(onCost / 1000).toFixed(1)} µs more than that bare call (the receiver, parsing the exports, runs in the same process); the receiver got ${exported.toLocaleString('en')} of the ${made.toLocaleString('en')} spans made (the batch processor drops spans past its queue of 2,048 when a tight loop outruns the exporter; a job makes a few dozen).`,
    '',
    jobs,
  ].join('\n');
  writeBenchSection('tracing', body);
}

await runBench(main);
