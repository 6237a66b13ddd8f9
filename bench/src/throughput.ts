/**
 * `npm run bench:throughput` — small documents through the whole service, against our parser
 * library alone on the same machine in the same run (issue 14).
 *
 * The service runs as `npm start` runs it: the supervisor (apps/supervisor) with its defaults,
 * given a private redis-server (REDIS_URL), its own DATA_DIR, port and key prefix; no LibreOffice
 * consumer (CONVERT_CONSUMERS=0: none of these documents needs one) and no per-tenant upload rate
 * limit (one tenant uploads everything; the limit would be what is measured). For each format — one-page
 * DOCX, one-page text PDF, a small XLSX, a small PNG of text (read by OCR) — it measures:
 * - documents/s end to end, uploaded 8 at a time, against the parser library alone in as many
 *   processes as there are cores (throughput-parser.ts);
 * - upload → `done` latency p50/p99, one document at a time, against the parser's own time on the
 *   same files;
 * - Redis commands per document (INFO commandstats, minus what the idle deployment sends in the
 *   same time) and the BullMQ jobs one document makes;
 * - the RSS of every process of the deployment, idle and at the end;
 * - DOCX again with 2 extract consumers instead of 1, on the same cores;
 * - a size sweep: 10- and 40-page text PDFs, documents/s against the parser alone, to show from
 *   how many pages a document the per-document cost of the pipeline stops mattering.
 * `done` is seen the moment the record's event stream gets it (XREAD on the bench's own
 * connection), so neither polling intervals nor the API's SSE connections add to the numbers.
 * BENCH_CPU_PROFILE=<dir> writes CPU profiles of every process of the first deployment (cpu-profile-preload.ts).
 * Results go to the `bench:throughput` section of docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { bullPrefix, QUEUES, stageJobId, type QueueName } from '@readpack/queues';
import { renderTimeTable, startOtlpReceiver, whereTheTimeGoes } from '@readpack/testing';
import { ATTR } from '@readpack/tracing';
import { FORMATS, PAGES, SIZE_FORMATS, type Format, type SmallFormat } from './throughput-documents.js';
import { rssOf, runThrough, startDeployment, writeDocuments, type Deployment } from './throughput-deployment.js';
import { benchRedis, cleanups, describeMachine, loadNote, loadNow, runBench, stopOnCleanUp, writeBenchChart, writeBenchSection } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CORES = cpus().length;
const UPLOAD_CONCURRENCY = 8;
const THROUGHPUT_DOCS: Record<SmallFormat, number> = {
  docx: Number(process.env.BENCH_DOCS ?? 200),
  pdf: Number(process.env.BENCH_DOCS ?? 200),
  xlsx: Number(process.env.BENCH_DOCS ?? 200),
  // OCR takes ~100× a DOCX parse: fewer images keep the run within minutes.
  png: Number(process.env.BENCH_PNG_DOCS ?? 40),
};
const LATENCY_DOCS: Record<SmallFormat, number> = { docx: 40, pdf: 40, xlsx: 40, png: 10 };
/** Documents of each longer PDF for the size sweep: about as many pages in each row. */
const SIZE_DOCS: Record<(typeof SIZE_FORMATS)[number], number> = { pdf10: 60, pdf40: 20 };
if (process.env.BENCH_LATENCY_DOCS) for (const format of FORMATS) LATENCY_DOCS[format] = Number(process.env.BENCH_LATENCY_DOCS);
/** As many as go up at once: the warm-up starts every parser thread the run will use (see cpu-per-document.ts). */
const WARM_UP_DOCS = UPLOAD_CONCURRENCY;
/** Documents of the MONITOR pass that counts round trips. */
const COUNTED_DOCS = 20;
/** Documents followed with tracing on, one at a time, for the span breakdown. */
const TRACED_DOCS = 20;
const TRACED_PNGS = 5;
/** Goals of issue 14: throughput ≥ 0.8× the parser alone; DOCX p50 ≤ parse p50 + 15 ms. */
const THROUGHPUT_GOAL = 0.8;
const LATENCY_GOAL_MS = 15;
const FORMAT_NAMES: Record<Format, string> = { docx: 'one-page DOCX', pdf: 'one-page text PDF', pdf10: '10-page text PDF', pdf40: '40-page text PDF', xlsx: 'small XLSX (20 × 5)', png: 'small PNG of text (OCR)' };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** The parser library alone: `files` split over `processes` processes; documents/s from the go signal to the last result, and each file's time. */
async function parserAlone(format: Format, files: string[], processes: number): Promise<{ docsPerSecond: number; ms: number[] }> {
  const shares = Array.from({ length: processes }, (_, i) => files.filter((_, j) => j % processes === i));
  const children = shares.map((share) => spawn(process.execPath, [join(REPO, 'bench/dist/throughput-parser.js'), format, ...share], { stdio: ['pipe', 'pipe', 'inherit'] }));
  for (const child of children) stopOnCleanUp(child);
  const lines = children.map((child) => createInterface({ input: child.stdout! })[Symbol.asyncIterator]());
  const next = async (i: number) => {
    const line = await lines[i]!.next();
    if (line.done) throw new Error(`baseline process ${children[i]!.pid} ended early (exit ${children[i]!.exitCode})`);
    return line.value;
  };
  await Promise.all(children.map(async (_, i) => (await next(i)) === 'ready' || Promise.reject(new Error('baseline process did not say ready'))));
  const started = performance.now();
  for (const child of children) child.stdin!.write('go\n');
  const ms = (await Promise.all(children.map(async (_, i) => (JSON.parse(await next(i)) as { ms: number[] }).ms))).flat();
  const seconds = (performance.now() - started) / 1000;
  return { docsPerSecond: files.length / seconds, ms };
}

/** INFO commandstats: calls per command. */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  return calls;
}

function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([cmd, n]) => [cmd, n - (before.get(cmd) ?? 0)]));
}

/** Commands per document: the run's calls less what the idle deployment sends in as long (its polls, heartbeats, stall checks). */
function perDocument(run: Map<string, number>, seconds: number, idlePerSecond: Map<string, number>, docs: number): Map<string, number> {
  return new Map([...run].map(([cmd, n]) => [cmd, Math.max(0, n - (idlePerSecond.get(cmd) ?? 0) * seconds) / docs] as const).filter(([, n]) => n >= 0.05).sort((a, b) => b[1] - a[1]));
}

/** Which BullMQ jobs a finished document made (their ids are derived from the job id; completed ones are kept for an hour). */
async function jobsOf(redis: Redis, prefix: string, jobId: string): Promise<string[]> {
  const candidates: [QueueName, string | undefined][] = [['extract', undefined], ['convert', undefined], ['mineru', undefined], ['render', 'p0'], ['ocr', 'p0'], ['assemble', undefined]];
  const found: string[] = [];
  for (const [queue, part] of candidates) {
    if ((await redis.exists(`${bullPrefix(prefix)}:${QUEUES[queue].name}:${stageJobId(jobId, queue, 1, part)}`)) === 1) found.push(part ? `${queue} (${part})` : queue);
  }
  return found;
}

/**
 * Client round trips per document (MONITOR: what clients send, not the commands scripts run
 * inside Redis), the documents one at a time, less what the idle deployment sends in as long.
 * A separate pass: MONITOR slows Redis, so no timed run has it on.
 */
async function roundTrips(redisUrl: string, deployment: Deployment, files: string[], format: Format): Promise<number> {
  const client = new Redis(redisUrl);
  const monitor = await client.monitor();
  let sent = 0;
  monitor.on('monitor', (_time: string, _args: string[], source: string) => {
    if (source !== 'lua') sent += 1;
  });
  try {
    // Long enough that the idle traffic (polls, stall checks, metrics pushes every few seconds) averages out.
    const idleSeconds = 10;
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idlePerSecond = sent / idleSeconds;
    sent = 0;
    const started = performance.now();
    await runThrough(deployment, redisUrl, files, format, 1);
    const seconds = (performance.now() - started) / 1000;
    // The bench's own XREADs (one per status change it waits through) are not the pipeline's.
    return Math.max(0, sent - idlePerSecond * seconds) / files.length;
  } finally {
    monitor.disconnect();
    client.disconnect();
  }
}

/** Microseconds on the monotonic clock V8's CPU profiles use for their sample times. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** CPU time of a process's main thread (its profile, cpu-profile-preload.ts) inside a window, in ms: samples not `(idle)`. */
function busyMsIn(profilePath: string, from: number, to: number): number | undefined {
  let profile: { nodes: { id: number; callFrame: { functionName: string } }[]; samples: number[]; timeDeltas: number[]; startTime: number };
  try {
    profile = JSON.parse(readFileSync(profilePath, 'utf8')) as typeof profile;
  } catch {
    return undefined;
  }
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let at = profile.startTime;
  let busy = 0;
  profile.samples.forEach((sample, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= from && at <= to && !idle.has(sample)) busy += delta;
  });
  return busy / 1000;
}

interface SizeResult {
  format: Format;
  docs: number;
  docsPerSecond: number;
  parserDocsPerSecond: number;
}

interface FormatResult {
  format: Format;
  docs: number;
  seconds: number;
  docsPerSecond: number;
  parserDocsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  parseP50: number;
  parseP99: number;
  commands: Map<string, number>;
  roundTrips: number;
  jobs: string[];
}

async function main(): Promise<void> {
  const startLoad = loadNow();
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-throughput-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const docsDir = join(work, 'docs');
  mkdirSync(docsDir);
  const profileDir = process.env.BENCH_CPU_PROFILE;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const files = new Map<Format, { warmUp: string[]; throughput: string[]; latency: string[]; counted: string[]; second: string[] }>();
  for (const format of FORMATS) {
    const count = THROUGHPUT_DOCS[format];
    files.set(format, {
      throughput: await writeDocuments(docsDir, format, 0, count),
      latency: await writeDocuments(docsDir, format, count, LATENCY_DOCS[format]),
      warmUp: await writeDocuments(docsDir, format, 100_000, WARM_UP_DOCS),
      counted: await writeDocuments(docsDir, format, 300_000, COUNTED_DOCS),
      second: format === 'docx' ? await writeDocuments(docsDir, format, 200_000, count) : [],
    });
  }
  console.log(`generated ${[...files.values()].reduce((n, f) => n + f.throughput.length + f.latency.length + f.warmUp.length + f.counted.length + f.second.length, 0)} documents in ${docsDir}`);

  const { url: redisUrl } = await benchRedis(['--save', '', '--appendonly', 'no']);
  const stats = new Redis(redisUrl);
  cleanups.push(() => void stats.disconnect());
  const deployment = await startDeployment(work, redisUrl, 1, profileDir);
  // Let every consumer finish starting (OCR workers warm up) before the idle sample.
  await new Promise((r) => setTimeout(r, 8_000));
  const idleRss = rssOf(deployment);
  const idleWindow = 10;
  const idleBefore = await commandCalls(stats);
  await new Promise((r) => setTimeout(r, idleWindow * 1000));
  const idlePerSecond = new Map([...delta(await commandCalls(stats), idleBefore)].map(([cmd, n]) => [cmd, n / idleWindow]));
  const idleTotal = [...idlePerSecond.values()].reduce((a, b) => a + b, 0);

  const results: FormatResult[] = [];
  let docxWindow = { from: 0, to: 0 };
  for (const format of FORMATS) {
    const set = files.get(format)!;
    console.log(`${format}: warm-up`);
    await runThrough(deployment, redisUrl, set.warmUp, format, UPLOAD_CONCURRENCY);
    console.log(`${format}: ${set.throughput.length} documents, ${UPLOAD_CONCURRENCY} at a time`);
    const before = await commandCalls(stats);
    const window = { from: monotonicMicros(), to: 0 };
    const run = await runThrough(deployment, redisUrl, set.throughput, format, UPLOAD_CONCURRENCY);
    window.to = monotonicMicros();
    if (format === 'docx') docxWindow = window;
    const commands = perDocument(delta(await commandCalls(stats), before), run.seconds, idlePerSecond, set.throughput.length);
    console.log(`${format}: latency, one at a time`);
    const latency = await runThrough(deployment, redisUrl, set.latency, format, 1);
    const jobs = await jobsOf(stats, deployment.prefix, latency.results.at(-1)!.jobId);
    const trips = await roundTrips(redisUrl, deployment, set.counted, format);
    console.log(`${format}: the parser alone in ${CORES} processes, then in one`);
    const alone = await parserAlone(format, set.throughput, CORES);
    const parseTimes = (await parserAlone(format, set.latency, 1)).ms;
    const latencies = latency.results.map((r) => r.ms);
    results.push({
      format,
      docs: set.throughput.length,
      seconds: run.seconds,
      docsPerSecond: set.throughput.length / run.seconds,
      parserDocsPerSecond: alone.docsPerSecond,
      latencyP50: percentile(latencies, 50),
      latencyP99: percentile(latencies, 99),
      parseP50: percentile(parseTimes, 50),
      parseP99: percentile(parseTimes, 99),
      commands,
      roundTrips: trips,
      jobs,
    });
  }
  // The size sweep: the same deployment, longer text PDFs, documents/s against the parser alone.
  const sizes: SizeResult[] = [];
  for (const format of SIZE_FORMATS) {
    const docs = await writeDocuments(docsDir, format, 0, SIZE_DOCS[format]);
    await runThrough(deployment, redisUrl, await writeDocuments(docsDir, format, 100_000, 2), format, 1);
    console.log(`${format}: ${docs.length} documents, ${UPLOAD_CONCURRENCY} at a time, then the parser alone`);
    const run = await runThrough(deployment, redisUrl, docs, format, UPLOAD_CONCURRENCY);
    const alone = await parserAlone(format, docs, CORES);
    sizes.push({ format, docs: docs.length, docsPerSecond: docs.length / run.seconds, parserDocsPerSecond: alone.docsPerSecond });
  }
  const endRss = rssOf(deployment);
  await deployment.stop();
  // Profiles are written as the processes exit; main threads only (parser threads are not profiled).
  const docxCount = files.get('docx')!.throughput.length;
  const cpuRows = profileDir
    ? [...endRss].flatMap(([pid, { name }]) => {
        const ms = busyMsIn(join(profileDir, `${pid}.cpuprofile`), docxWindow.from, docxWindow.to);
        return ms === undefined ? [] : [{ name: `${name} (pid ${pid})`, perDoc: ms / docxCount }];
      })
    : [];

  console.log('docx: 2 extract consumers');
  const two = await startDeployment(work, redisUrl, 2);
  await new Promise((r) => setTimeout(r, 8_000));
  const docx = files.get('docx')!;
  await runThrough(two, redisUrl, docx.warmUp, 'docx', UPLOAD_CONCURRENCY);
  const twoRun = await runThrough(two, redisUrl, docx.second, 'docx', UPLOAD_CONCURRENCY);
  await two.stop();
  // Where the time goes: a deployment of its own with tracing on (the runs above had it off, as
  // `npm start` has), documents one at a time, every process exporting to a local OTLP receiver.
  console.log('span breakdown: tracing on');
  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const traced = await startDeployment(work, redisUrl, 1, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  await new Promise((r) => setTimeout(r, 8_000));
  const tracedFiles = { docx: await writeDocuments(docsDir, 'docx', 400_000, TRACED_DOCS), png: await writeDocuments(docsDir, 'png', 400_000, TRACED_PNGS) };
  await runThrough(traced, redisUrl, files.get('docx')!.warmUp.slice(0, 2), 'docx', 1);
  const tracedFrom = receiver.spans().length;
  const tracedDocx = await runThrough(traced, redisUrl, tracedFiles.docx, 'docx', 1);
  const docxSpans = receiver.spans().length;
  const tracedPng = await runThrough(traced, redisUrl, tracedFiles.png, 'png', 1);
  // Spans are exported in batches: stopping the processes flushes the last ones.
  await traced.stop();
  const spansOf = (jobIds: readonly string[]) => {
    const wanted = new Set(jobIds);
    const all = receiver.spans().slice(tracedFrom);
    const traceIds = new Set(all.filter((s) => wanted.has(String(s.attributes[ATTR.jobId] ?? ''))).map((s) => s.traceId));
    return whereTheTimeGoes(all, { traceIds });
  };
  const docxBreakdown = spansOf(tracedDocx.results.map((r) => r.jobId));
  const pngBreakdown = spansOf(tracedPng.results.map((r) => r.jobId));
  console.log(`collected ${receiver.spans().length - tracedFrom} spans (${docxSpans - tracedFrom} by the end of the DOCX run)`);

  const oneDocx = results.find((r) => r.format === 'docx')!;
  const twoDocsPerSecond = docx.second.length / twoRun.seconds;

  const f = (n: number, digits = 1) => n.toFixed(digits);
  const rows = results.map((r) => {
    const ratio = r.docsPerSecond / r.parserDocsPerSecond;
    return `| ${FORMAT_NAMES[r.format]} | ${r.docs} | ${f(r.docsPerSecond)} | ${f(r.parserDocsPerSecond)} | **${f(ratio, 2)}×** ${ratio >= THROUGHPUT_GOAL ? 'met' : 'missed'} | ${f(r.latencyP50, 0)} / ${f(r.latencyP99, 0)} ms | ${f(r.parseP50)} / ${f(r.parseP99)} ms | ${f(r.latencyP50 - r.parseP50, 0)} ms |`;
  });
  const commandRows = results.map((r) => {
    const total = [...r.commands.values()].reduce((a, b) => a + b, 0);
    const top = [...r.commands].slice(0, 6).map(([cmd, n]) => `${cmd} ${f(n)}`).join(', ');
    return `| ${FORMAT_NAMES[r.format]} | ${f(r.roundTrips, 0)} | ${f(total, 0)} | ${top} | ${r.jobs.join(' → ') || '(none found)'} |`;
  });
  const rssRows = [...new Set([...idleRss.keys(), ...endRss.keys()])].map((pid) => {
    const name = idleRss.get(pid)?.name ?? endRss.get(pid)!.name;
    const idle = idleRss.get(pid);
    const end = endRss.get(pid);
    return `| ${name} (pid ${pid}) | ${idle ? `${f(idle.mb, 0)} MB` : 'not running'} | ${end ? `${f(end.mb, 0)} MB` : 'ended'} |`;
  });
  // With API_INSTANCES=1 the primary serves alone; with more, its cluster workers serve.
  const apiWorkers = [...idleRss.values()].filter((p) => p.name === 'api worker').length;
  const apiProcesses = apiWorkers > 0 ? apiWorkers : [...idleRss.values()].filter((p) => p.name === 'api primary').length;
  const consumerProcesses = [...idleRss.values()].filter((p) => p.name.startsWith('consumer ')).map((p) => p.name.slice('consumer '.length));
  const sumRss = (m: Map<string, { mb: number }>) => [...m.values()].reduce((a, b) => a + b.mb, 0);

  // Every sentence below is built from this run's numbers.
  const throughputVerdicts = results.map((r) => {
    const ratio = r.docsPerSecond / r.parserDocsPerSecond;
    return `${r.format.toUpperCase()} ${f(ratio, 2)}× (${ratio >= THROUGHPUT_GOAL ? 'met' : 'missed'})`;
  });
  const docxOverhead = oneDocx.latencyP50 - oneDocx.parseP50;
  const latencyVerdict =
    docxOverhead <= LATENCY_GOAL_MS
      ? `met: upload → done p50 ${f(oneDocx.latencyP50, 0)} ms is ${f(docxOverhead, 0)} ms over the parse's own ${f(oneDocx.parseP50)} ms, within the ${LATENCY_GOAL_MS} ms allowed`
      : `missed: upload → done p50 ${f(oneDocx.latencyP50, 0)} ms is ${f(docxOverhead, 0)} ms over the parse's own ${f(oneDocx.parseP50)} ms, ${f(docxOverhead - LATENCY_GOAL_MS, 0)} ms more than the ${LATENCY_GOAL_MS} ms allowed`;
  const scaling = twoDocsPerSecond / oneDocx.docsPerSecond;
  const onePagePdf = results.find((r) => r.format === 'pdf')!;
  const sweep = [{ format: onePagePdf.format, docs: onePagePdf.docs, docsPerSecond: onePagePdf.docsPerSecond, parserDocsPerSecond: onePagePdf.parserDocsPerSecond }, ...sizes].map((r) => ({
    ...r,
    pages: PAGES[r.format],
    ratio: r.docsPerSecond / r.parserDocsPerSecond,
  }));
  const sweepRows = sweep.map((r) => `| ${FORMAT_NAMES[r.format]} | ${r.docs} | ${f(r.docsPerSecond * r.pages)} | ${f(r.parserDocsPerSecond * r.pages)} | **${f(r.ratio, 2)}×** ${r.ratio >= THROUGHPUT_GOAL ? 'met' : 'missed'} |`);
  const firstMet = sweep.find((r) => r.ratio >= THROUGHPUT_GOAL);
  const sweepVerdict = firstMet
    ? `the ${THROUGHPUT_GOAL}× goal is first met at ${firstMet.pages} page${firstMet.pages === 1 ? '' : 's'} a document (${f(firstMet.ratio, 2)}×), the smallest size of this sweep that reaches it`
    : `the ${THROUGHPUT_GOAL}× goal is not met even at ${sweep.at(-1)!.pages} pages (${f(sweep.at(-1)!.ratio, 2)}×)`;
  const chart = writeBenchChart(
    'throughput',
    `Small documents: pipeline ÷ parser alone (${CORES} cores)`,
    '×',
    results.map((r) => ({ label: FORMAT_NAMES[r.format], value: r.docsPerSecond / r.parserDocsPerSecond, goal: THROUGHPUT_GOAL })),
  );
  const section = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${describeMachine(loadNote(startLoad, loadNow()))}.`,
    `The service as \`npm start\` runs it (supervisor defaults: ${apiProcesses} API process${apiProcesses === 1 ? '' : 'es'}, consumer processes ${consumerProcesses.map((c) => `[${c}]`).join(', ')}, no convert consumer), a private redis-server;`,
    `the baseline is our parser library called directly (packages/parsers \`parseDocument\`; for the PNG, @readpack/ocr's \`readPage\` with tesseract.js, \`eng\`) on the same bytes,`,
    `in ${CORES} processes (one per core) for documents/s and in one process for the per-file time. Uploads ${UPLOAD_CONCURRENCY} at a time for documents/s, one at a time for latency;`,
    '`done` is taken from the record\'s event stream. PNG uploads ask for `ocrLang=eng`, as the baseline reads. `UPLOAD_RATE_PER_MINUTE` is lifted (one tenant uploads everything); logs at the default level.',
    '',
    '| documents | n | pipeline docs/s | parser alone docs/s | ratio (goal ≥ 0.8×) | upload → done p50 / p99 | parse p50 / p99 | p50 overhead |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `![pipeline ÷ parser alone](${chart})`,
    '',
    `Throughput against the parser alone: ${throughputVerdicts.join(', ')}. Latency goal for a one-page DOCX (p50 ≤ parse + ${LATENCY_GOAL_MS} ms) ${latencyVerdict}.`,
    `One → two extract consumers on the same ${CORES} cores: ${f(oneDocx.docsPerSecond)} → ${f(twoDocsPerSecond)} DOCX/s (${f(scaling, 2)}×).`,
    '',
    `**Document size** (text PDFs through the same deployment, ${UPLOAD_CONCURRENCY} at a time, against the parser alone in ${CORES} processes; the pipeline's cost per document is paid once, the parse per page):`,
    '',
    '| documents | n | pipeline pages/s | parser alone pages/s | ratio (goal ≥ 0.8×) |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...sweepRows,
    '',
    `Ratio by pages a document: ${sweep.map((r) => `${r.pages} → ${f(r.ratio, 2)}×`).join(', ')}; ${sweepVerdict}.`,
    '',
    `Redis per document: round trips (what clients send, counted with MONITOR over ${COUNTED_DOCS} documents one at a time, less the idle deployment's traffic in as long; the bench's own XREADs included),`,
    `commands executed including those scripts run inside Redis (INFO commandstats over the throughput run, less the idle deployment's ${f(idleTotal)} commands/s), and the BullMQ jobs one document made:`,
    '',
    '| documents | round trips / document | commands / document | most frequent commands | BullMQ jobs |',
    '| --- | ---: | ---: | --- | --- |',
    ...commandRows,
    '',
    `**Where the time goes** (OpenTelemetry spans of a deployment of its own with tracing on, \`OTEL_EXPORTER_OTLP_ENDPOINT\` at a local OTLP receiver, documents one at a time; \`whereTheTimeGoes\` over their traces). One-page DOCX:`,
    '',
    renderTimeTable(docxBreakdown),
    '',
    'Small PNG of text (OCR):',
    '',
    renderTimeTable(pngBreakdown),
    '',
    ...(cpuRows.length > 0
      ? [
          `CPU of each process's main thread per document during the one-page DOCX throughput run (V8 sampling profiles, BENCH_CPU_PROFILE; the parse itself runs in extract's worker thread, not counted here; the parser alone took ${f(results.find((r) => r.format === 'docx')!.parseP50)} ms per file): ${f(cpuRows.reduce((a, r) => a + r.perDoc, 0))} ms in all.`,
          '',
          '| process | CPU ms per DOCX |',
          '| --- | ---: |',
          ...cpuRows.map((r) => `| ${r.name} | ${f(r.perDoc, 2)} |`),
          '',
        ]
      : []),
    `RSS of every process of the deployment, idle after start-up and at the end of the runs (total ${f(sumRss(idleRss), 0)} MB → ${f(sumRss(endRss), 0)} MB):`,
    '',
    '| process | idle | at the end |',
    '| --- | ---: | ---: |',
    ...rssRows,
  ].join('\n');
  writeBenchSection('throughput', section);
}

void runBench(main);
