/**
 * `npm run bench:scaling` — the sizing model of docs/scaling.md, calibrated and then checked.
 *
 * 1. Calibration, one consumer per stage: a text workload (20-page born-digital PDFs) and a scan
 *    workload (4-page scans, every page rendered and OCRed), each on its own. Measured per
 *    workload: CPU seconds per page of every stage's processes, of the API and of Redis (from
 *    /proc and INFO, not wall time, so other load on the machine does not enter them), Redis
 *    commands and memory per document, object-store requests per document (STORAGE=s3 against
 *    s3rver behind a counting proxy).
 * 2. The model predicts, from those costs alone, how long a mixed workload takes with 1 and with 2
 *    consumers per stage on this machine's cores (docs/scaling.md, "The model").
 * 3. The check: the mixed workload runs at 1 and at 2 consumers per stage; measured against
 *    predicted time. The verdict is computed from those numbers.
 *
 * Writes the `bench:scaling` section of docs/benchmarks.md and the generated block of
 * docs/scaling.md (costs and the consumers-per-stage table).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { PDFDocument } from 'pdf-lib';
import S3rver from 's3rver';
import { loadConfig } from '@readpack/config';
import { ThrowawayRedis } from '@readpack/testing';
import { cleanups, describeMachine, freePort, runBench, stopOnCleanUp, writeBenchSection } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SCALING_DOC = join(REPO, 'docs/scaling.md');
const CORES = cpus().length;
/** BENCH_SCALE=0.25 for a quick try; 1 for the recorded run. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const TEXT_PAGES_PER_DOC = 20;
const SCAN_PAGES_PER_DOC = 4;
const TEXT_DOCS = Math.max(2, Math.round(16 * SCALE));
const SCAN_DOCS = Math.max(2, Math.round(8 * SCALE));
const UPLOAD_CONCURRENCY = 8;
/** Within this of the prediction, the model holds. */
const TOLERANCE = 0.25;
/**
 * Stages the workloads use, with the concurrency of one consumer as the deployments run it (the
 * defaults, or this environment's, which they inherit): OCR's default is the machine's cores.
 */
const CONCURRENCY = loadConfig(process.env).stages;
const STAGES = { extract: CONCURRENCY.extract.concurrency, render: CONCURRENCY.render.concurrency, ocr: CONCURRENCY.ocr.concurrency, assemble: CONCURRENCY.assemble.concurrency };
type StageName = keyof typeof STAGES;
const STAGE_NAMES = Object.keys(STAGES) as StageName[];
type Workload = 'text' | 'scan';

// ---------------------------------------------------------------------------------------------
// Measuring: CPU of process trees, Redis counters, object-store requests.

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds of a process: itself, its threads, its reaped children, and its live descendants. */
function treeCpuSeconds(pid: number): number {
  const stat = (p: number) => {
    try {
      const raw = readFileSync(`/proc/${p}/stat`, 'utf8');
      return raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined; // gone
    }
  };
  const own = stat(pid);
  if (!own) return 0;
  // Fields 14–17 of stat (utime stime cutime cstime); the slice starts at field 3.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of childrenOf(pid)) ticks += treeCpuSeconds(child) * TICKS;
  return ticks / TICKS;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

interface RedisCounters {
  commands: number;
  cpuSeconds: number;
  usedMemory: number;
}

async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const [stats, cpu, memory] = await Promise.all([redis.info('commandstats'), redis.info('cpu'), redis.info('memory')]);
  let commands = 0;
  for (const [, calls] of stats.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) commands += Number(calls);
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
  return { commands, cpuSeconds: field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys'), usedMemory: field(memory, 'used_memory') };
}

/** An HTTP proxy in front of s3rver that counts requests by method. */
async function countingS3(): Promise<{ endpoint: string; bucket: string; counts: Map<string, number> }> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-scaling-s3-'));
  const bucket = 'bench-scaling';
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port: s3Port } = await s3.run();
  const counts = new Map<string, number>();
  const proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    counts.set(req.method ?? '?', (counts.get(req.method ?? '?') ?? 0) + 1);
    const upstream = request({ host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  const port = await new Promise<number>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve((proxy.address() as { port: number }).port)));
  cleanups.push(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    s3.httpServer?.closeAllConnections();
    await s3.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { endpoint: `http://127.0.0.1:${port}`, bucket, counts };
}

// ---------------------------------------------------------------------------------------------
// The deployment: a private Redis, the API, n consumers per stage, every process its own DATA_DIR.

interface Deployment {
  apiUrl: string;
  apiPid: number;
  consumers: { stage: StageName; pid: number; stop: () => Promise<void> }[];
}

async function deploy(env: NodeJS.ProcessEnv, work: string, perStage: number, api?: Deployment): Promise<Deployment> {
  const spawnApp = (name: string, args: string[]) => {
    const child = spawn(process.execPath, args, { env: { ...env, DATA_DIR: join(work, name) }, stdio: ['ignore', 'ignore', 'inherit'] });
    return { child, stop: stopOnCleanUp(child) };
  };
  let apiUrl = api?.apiUrl;
  let apiPid = api?.apiPid;
  if (!apiUrl || !apiPid) {
    const { child } = spawnApp('api', [join(REPO, 'apps/api/dist/main.js')]);
    apiUrl = `http://127.0.0.1:${env.PORT}`;
    apiPid = child.pid!;
    await waitFor(async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 30_000, 'API');
  }
  const consumers = STAGE_NAMES.flatMap((stage) =>
    Array.from({ length: perStage }, (_, i) => {
      const { child, stop } = spawnApp(`${stage}-${perStage}-${i}`, [join(REPO, 'apps/worker/dist/main.js'), stage]);
      return { stage, pid: child.pid!, stop };
    }),
  );
  // Consumers are ready when their BullMQ workers have connected; idle a moment so start-up CPU
  // is not charged to the first workload.
  await new Promise((r) => setTimeout(r, 6_000));
  return { apiUrl, apiPid, consumers };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms`);
}

// ---------------------------------------------------------------------------------------------
// Workloads: distinct documents (a title per copy), so dedup joins none of them.

let serial = 0;

async function makeDocs(kind: Workload, count: number): Promise<{ name: string; bytes: Uint8Array; pages: number }[]> {
  const source = await PDFDocument.load(readFileSync(join(REPO, kind === 'text' ? 'fixtures/corpus/GeoTopo-komprimiert.pdf' : 'fixtures/corpus/epson.pdf')));
  const pageCount = kind === 'text' ? TEXT_PAGES_PER_DOC : SCAN_PAGES_PER_DOC;
  const indices = Array.from({ length: pageCount }, (_, i) => (kind === 'text' ? i + 10 : 0));
  const docs = [];
  for (let i = 0; i < count; i += 1) {
    const doc = await PDFDocument.create();
    for (const page of await doc.copyPages(source, indices)) doc.addPage(page);
    serial += 1;
    doc.setTitle(`bench scaling ${kind} ${serial} ${randomBytes(4).toString('hex')}`);
    docs.push({ name: `${kind}-${serial}.pdf`, bytes: await doc.save(), pages: pageCount });
  }
  return docs;
}

interface PhaseResult {
  seconds: number;
  docs: number;
  pages: { text: number; scan: number };
  cpu: Record<StageName | 'api' | 'redis', number>;
  redisCommands: number;
  redisMemory: number;
  s3Requests: number;
}

/**
 * What a deployment costs when nothing happens (consumers' blocking reads, metrics pushes, the
 * sweeper) per second, and what one status poll costs: subtracted from every phase, so the
 * per-document figures are the documents' own, whatever the phase's length or the polling.
 */
interface Background {
  cpuPerSecond: Record<StageName | 'api' | 'redis', number>;
  redisCommandsPerSecond: number;
  perPoll: { apiCpu: number; redisCommands: number };
}

const IDLE_SAMPLE_MS = 10_000;
const POLL_SAMPLES = 200;
const POLL_INTERVAL_MS = 1_000;

function cpuOf(deployment: Deployment): Record<StageName | 'api', number> {
  const cpu = Object.fromEntries(STAGE_NAMES.map((s) => [s, 0])) as Record<StageName, number>;
  for (const c of deployment.consumers) cpu[c.stage] += treeCpuSeconds(c.pid);
  return { ...cpu, api: treeCpuSeconds(deployment.apiPid) };
}

async function measureBackground(deployment: Deployment, redis: Redis): Promise<Background> {
  const [cpu0, redis0, t0] = [cpuOf(deployment), await redisCounters(redis), performance.now()];
  await new Promise((r) => setTimeout(r, IDLE_SAMPLE_MS));
  const [cpu1, redis1, t1] = [cpuOf(deployment), await redisCounters(redis), performance.now()];
  const seconds = (t1 - t0) / 1_000;
  const cpuPerSecond = Object.fromEntries(Object.entries(cpu1).map(([k, v]) => [k, (v - cpu0[k as keyof typeof cpu0]) / seconds])) as Background['cpuPerSecond'];
  cpuPerSecond.redis = (redis1.cpuSeconds - redis0.cpuSeconds) / seconds;
  // A poll of an absent job reads what a poll of a present one reads (one HMGET of the record).
  const [apiBefore, redisBefore] = [treeCpuSeconds(deployment.apiPid), await redisCounters(redis)];
  for (let i = 0; i < POLL_SAMPLES; i += 1) await (await fetch(`${deployment.apiUrl}/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA`)).arrayBuffer();
  const [apiAfter, redisAfter] = [treeCpuSeconds(deployment.apiPid), await redisCounters(redis)];
  return {
    cpuPerSecond,
    redisCommandsPerSecond: (redis1.commands - redis0.commands - 3) / seconds, // 3: the INFO calls themselves
    perPoll: { apiCpu: (apiAfter - apiBefore) / POLL_SAMPLES, redisCommands: (redisAfter.commands - redisBefore.commands - 3) / POLL_SAMPLES },
  };
}

async function runPhase(deployment: Deployment, redis: Redis, s3: Map<string, number>, background: Background, docs: { name: string; bytes: Uint8Array; pages: number; kind: Workload }[]): Promise<PhaseResult> {
  const cpuNow = () => cpuOf(deployment);
  const s3Total = () => [...s3.values()].reduce((a, b) => a + b, 0);
  const [cpu0, redis0, s30] = [cpuNow(), await redisCounters(redis), s3Total()];
  const started = performance.now();
  const queue = [...docs];
  const jobIds: string[] = [];
  await Promise.all(
    Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
      for (let doc = queue.shift(); doc; doc = queue.shift()) {
        const form = new FormData();
        form.append('file', new Blob([doc.bytes], { type: 'application/pdf' }), doc.name);
        const res = await fetch(`${deployment.apiUrl}/api/files`, { method: 'POST', body: form });
        if (res.status !== 202 && res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
        jobIds.push(((await res.json()) as { jobId: string }).jobId);
      }
    }),
  );
  const pending = new Set(jobIds);
  let polls = 0;
  while (pending.size > 0) {
    for (const id of [...pending]) {
      polls += 1;
      const res = await fetch(`${deployment.apiUrl}/api/files/job/${id}`);
      const { status } = (await res.json()) as { status: string };
      if (status === 'failed') throw new Error(`job ${id} failed`);
      if (status === 'done') pending.delete(id);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
  }
  const seconds = (performance.now() - started) / 1_000;
  const [cpu1, redis1] = [cpuNow(), await redisCounters(redis)];
  const own = (key: StageName | 'api' | 'redis', total: number) => Math.max(0, total - background.cpuPerSecond[key] * seconds - (key === 'api' ? polls * background.perPoll.apiCpu : 0));
  const cpu = Object.fromEntries(Object.entries(cpu1).map(([k, v]) => [k, own(k as StageName | 'api', v - cpu0[k as keyof typeof cpu0])])) as Record<StageName | 'api', number>;
  return {
    seconds,
    docs: docs.length,
    pages: { text: docs.filter((d) => d.kind === 'text').reduce((a, d) => a + d.pages, 0), scan: docs.filter((d) => d.kind === 'scan').reduce((a, d) => a + d.pages, 0) },
    cpu: { ...cpu, redis: own('redis', redis1.cpuSeconds - redis0.cpuSeconds) },
    redisCommands: Math.max(0, redis1.commands - redis0.commands - background.redisCommandsPerSecond * seconds - polls * background.perPoll.redisCommands),
    redisMemory: redis1.usedMemory - redis0.usedMemory,
    s3Requests: s3Total() - s30,
  };
}

// ---------------------------------------------------------------------------------------------
// The model (docs/scaling.md): per page of a workload, CPU seconds in each stage and overall.

interface Costs {
  /** CPU seconds per page, by stage, plus the API and Redis. */
  perPage: Record<StageName | 'api' | 'redis', number>;
  redisCommandsPerDoc: number;
  redisBytesPerDoc: number;
  s3RequestsPerDoc: number;
  pagesPerDoc: number;
}

function costsOf(phase: PhaseResult, pages: number): Costs {
  const perPage = Object.fromEntries(Object.entries(phase.cpu).map(([k, v]) => [k, v / pages])) as Costs['perPage'];
  return { perPage, redisCommandsPerDoc: phase.redisCommands / phase.docs, redisBytesPerDoc: phase.redisMemory / phase.docs, s3RequestsPerDoc: phase.s3Requests / phase.docs, pagesPerDoc: pages / phase.docs };
}

/**
 * Predicted seconds for `pages` of each workload with `perStage` consumers of every stage on
 * `cores`: the larger of (all CPU ÷ cores) and, for each stage, (its CPU ÷ the cores it can use:
 * consumers × concurrency, at most all cores).
 */
function predictSeconds(costs: Record<Workload, Costs>, pages: Record<Workload, number>, perStage: number, cores: number): { seconds: number; bound: string } {
  const demand = (key: keyof Costs['perPage']) => (['text', 'scan'] as const).reduce((sum, w) => sum + pages[w] * costs[w].perPage[key], 0);
  const total = [...STAGE_NAMES, 'api', 'redis'].reduce((sum, key) => sum + demand(key as keyof Costs['perPage']), 0);
  let best = { seconds: total / cores, bound: `all ${cores} cores busy` };
  for (const stage of STAGE_NAMES) {
    const seconds = demand(stage) / Math.min(perStage * STAGES[stage], cores);
    if (seconds > best.seconds) best = { seconds, bound: `${stage} (${Math.min(perStage * STAGES[stage], cores)} slot${perStage * STAGES[stage] === 1 ? '' : 's'})` };
  }
  return best;
}

/** Consumers of a stage for `pagesPerHour` pages of a workload, each kept ≤ 70 % busy. */
const UTILISATION = 0.7;
function consumersFor(costs: Costs, stage: StageName, pagesPerHour: number): number {
  const busySeconds = (pagesPerHour / 3_600) * costs.perPage[stage];
  return Math.max(1, Math.ceil(busySeconds / (STAGES[stage] * UTILISATION)));
}

// ---------------------------------------------------------------------------------------------

const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-scaling-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const server = await ThrowawayRedis.start({ stdio: 'ignore' });
  cleanups.push(() => server.dispose());
  const redis = new Redis(server.url);
  cleanups.push(() => void redis.disconnect());
  const s3 = await countingS3();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: server.url,
    READPACK_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    STORAGE: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const loadStart = loadavg()[0]!;

  // 1. Calibration at one consumer per stage.
  const one = await deploy(env, work, 1);
  const background = await measureBackground(one, redis);
  const tag = (kind: Workload) => async (n: number) => (await makeDocs(kind, n)).map((d) => ({ ...d, kind }));
  const textPhase = await runPhase(one, redis, s3.counts, background, await tag('text')(TEXT_DOCS));
  const scanPhase = await runPhase(one, redis, s3.counts, background, await tag('scan')(SCAN_DOCS));
  const costs: Record<Workload, Costs> = { text: costsOf(textPhase, textPhase.pages.text), scan: costsOf(scanPhase, scanPhase.pages.scan) };

  // 2–3. The mixed workload at 1, then 2 consumers per stage, against the prediction.
  const mixed = async () => [...(await tag('text')(TEXT_DOCS)), ...(await tag('scan')(SCAN_DOCS))].sort(() => Math.random() - 0.5);
  const checks: { perStage: number; phase: PhaseResult; predicted: { seconds: number; bound: string } }[] = [];
  for (const perStage of [1, 2]) {
    const deployment = perStage === 1 ? one : await deploy(env, work, 2, one);
    if (perStage === 2) for (const c of one.consumers) await c.stop();
    const phase = await runPhase(deployment, redis, s3.counts, background, await mixed());
    checks.push({ perStage, phase, predicted: predictSeconds(costs, phase.pages, perStage, CORES) });
  }
  const loadEnd = loadavg()[0]!;

  // Report.
  const costRows = (['text', 'scan'] as const).map((w) => {
    const c = costs[w];
    const cells = [...STAGE_NAMES, 'api', 'redis'].map((k) => fmt(c.perPage[k as keyof Costs['perPage']] * 1_000, 1));
    const total = Object.values(c.perPage).reduce((a, b) => a + b, 0);
    return `| ${w} (${c.pagesPerDoc}-page PDFs) | ${cells.join(' | ')} | ${fmt(total * 1_000, 1)} | ${fmt(1 / total, 2)} | ${int(c.redisCommandsPerDoc)} (${fmt(c.redisCommandsPerDoc / c.pagesPerDoc, 1)}/page) | ${fmt(c.redisBytesPerDoc / 1024, 1)} KiB | ${fmt(c.s3RequestsPerDoc, 1)} |`;
  });
  const costTable = [
    `| workload | ${STAGE_NAMES.map((s) => `${s} CPU ms/page`).join(' | ')} | API ms/page | Redis ms/page | total CPU ms/page | pages per CPU-s | Redis commands/doc | Redis memory/doc | object-store requests/doc |`,
    `| --- | ${[...STAGE_NAMES, 'api', 'redis', 'total', 'rate', 'cmd', 'mem', 's3'].map(() => '---:').join(' | ')} |`,
    ...costRows,
  ].join('\n');
  const verdicts = checks.map(({ perStage, phase, predicted }) => {
    const error = phase.seconds / predicted.seconds - 1;
    const pages = phase.pages.text + phase.pages.scan;
    return { perStage, pages, measured: phase.seconds, predicted, error, held: Math.abs(error) <= TOLERANCE };
  });
  const checkTable = [
    '| consumers per stage | pages (text + scan) | predicted | bound by | measured | measured ÷ predicted | pages/s measured | within ±25 % |',
    '| ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |',
    ...verdicts.map((v) => `| ${v.perStage} | ${v.pages} (${checks[v.perStage - 1]!.phase.pages.text} + ${checks[v.perStage - 1]!.phase.pages.scan}) | ${fmt(v.predicted.seconds, 1)} s | ${v.predicted.bound} | ${fmt(v.measured, 1)} s | ${fmt(1 + v.error, 2)} | ${fmt(v.pages / v.measured, 2)} | ${v.held ? 'yes' : 'no'} |`),
  ].join('\n');
  const held = verdicts.filter((v) => v.held).length;
  const speedup = verdicts[0]!.measured / verdicts[1]!.measured;
  const predictedSpeedup = verdicts[0]!.predicted.seconds / verdicts[1]!.predicted.seconds;

  const sizing = (['text', 'scan'] as const).flatMap((w) =>
    [10_000, 100_000, 1_000_000].map((n) => {
      const per = STAGE_NAMES.map((s) => consumersFor(costs[w], s, n));
      const cores = Math.ceil(((n / 3_600) * Object.values(costs[w].perPage).reduce((a, b) => a + b, 0)) / UTILISATION);
      const docsPerSecond = n / 3_600 / costs[w].pagesPerDoc;
      return `| ${w} | ${int(n)} | ${per.join(' | ')} | ${cores} | ${int(docsPerSecond * costs[w].redisCommandsPerDoc)} | ${int(docsPerSecond * costs[w].s3RequestsPerDoc * 3_600)} |`;
    }),
  );
  const sizingTable = [
    `| workload | pages/hour | ${STAGE_NAMES.map((s) => `${s} consumers`).join(' | ')} | cores (all stages, API, Redis) | Redis commands/s | object-store requests/hour |`,
    `| --- | ---: | ${STAGE_NAMES.map(() => '---:').join(' | ')} | ---: | ---: | ---: |`,
    ...sizing,
  ].join('\n');

  const machine = describeMachine(`load average ${fmt(loadStart, 1)} at the start, ${fmt(loadEnd, 1)} at the end`);
  const section = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on \`${hostname()}\`: ${machine}. STORAGE=s3 (s3rver behind a counting proxy), a private redis-server, every process its own DATA_DIR.`,
    '',
    `**Calibration** (one consumer per stage; ${TEXT_DOCS} text PDFs of ${TEXT_PAGES_PER_DOC} pages, then ${SCAN_DOCS} scans of ${SCAN_PAGES_PER_DOC} pages, uploaded ${UPLOAD_CONCURRENCY} at a time; CPU from /proc of each process tree and Redis' INFO, so other load on the machine does not enter it):`,
    '',
    costTable,
    '',
    `Subtracted as background (measured idle for ${IDLE_SAMPLE_MS / 1_000} s before the first phase, ${STAGE_NAMES.length} consumers and the API): ${fmt(background.redisCommandsPerSecond, 1)} Redis commands/s, ${fmt(Object.values(background.cpuPerSecond).reduce((a, b) => a + b, 0) * 1_000, 1)} ms of CPU per second in all; and the client's status polls (every ${POLL_INTERVAL_MS / 1_000} s per pending job): ${fmt(background.perPoll.redisCommands, 2)} Redis commands and ${fmt(background.perPoll.apiCpu * 1_000, 2)} ms of API CPU each.`,
    '',
    `**Check** (a mixed workload of ${TEXT_DOCS} text PDFs and ${SCAN_DOCS} scans, shuffled; predicted from the calibration alone by docs/scaling.md's model on ${CORES} cores):`,
    '',
    checkTable,
    '',
    `The model held in ${held} of ${verdicts.length} runs (tolerance ±${TOLERANCE * 100} %). Going from 1 to 2 consumers per stage ${speedup >= 1 ? `made the mixed workload ${fmt(speedup, 2)}× faster` : `made the mixed workload slower (${fmt(speedup, 2)}× the pages/s of one per stage)`}; the model predicted ${fmt(predictedSpeedup, 2)}×.`,
  ].join('\n');
  writeBenchSection('scaling', section);

  const generated = [
    `Generated by \`npm run bench:scaling\` (${new Date().toISOString().slice(0, 10)}, ${machine}).`,
    '',
    costTable,
    '',
    `Consumers per stage for a steady load, each consumer kept ≤ ${UTILISATION * 100} % busy (one consumer at default concurrency: ${STAGE_NAMES.map((s) => `${s} ${STAGES[s]}`).join(', ')}):`,
    '',
    sizingTable,
    '',
    'The check of the model against this machine:',
    '',
    checkTable,
  ].join('\n');
  const [open, close] = ['<!-- scaling:generated -->', '<!-- /scaling:generated -->'];
  const doc = readFileSync(SCALING_DOC, 'utf8');
  const [start, end] = [doc.indexOf(open), doc.indexOf(close)];
  if (start < 0 || end < start) throw new Error(`${SCALING_DOC} lacks the ${open} … ${close} block`);
  writeFileSync(SCALING_DOC, `${doc.slice(0, start + open.length)}\n${generated}\n${doc.slice(end)}`);
}

await runBench(main);
