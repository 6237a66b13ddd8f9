/**
 * `npm run bench:status`: what a status poll costs, against baselines measured in the same run.
 *
 * 1. Throughput and p99 latency of `GET /api/files/job/:id` (a real `done` record in Redis, read
 *    by the real API process) versus an Express 5 hello-world in a process of its own, under the
 *    same autocannon load. The API runs with API_KEYS set, the path production takes (the key is
 *    checked on every poll); the same API in dev mode (no keys) is measured beside it. Three more
 *    routes in the baseline process separate the costs: Express plus one GET of a string, plus the
 *    one HMGET the status route makes (the document stored by the job-state scripts), and plus
 *    HGETALL of the record with the document built in Node (JSON.stringify), the alternative to
 *    building it in Lua at every change: the report says which wins. One process each, then two
 *    (node:cluster) each.
 * 2. Redis memory per terminal job record, created through the real JobStateStore, with Redis
 *    configured as `npm start` configures it and with Redis' defaults.
 *
 * Results go to the `bench:status` section of docs/benchmarks.md (and nowhere else in it).
 * `node bench/dist/status.js --hello-world` is the baseline server this script starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Express } from 'express';
import type { RedisClient } from '@readpack/redis';
import { loadConfig } from '@readpack/config';
import { JobStateStore, type NewJob } from '@readpack/job-state';
import { PROCESS_IDENTITY } from '@readpack/logging';
import { createConsumerConnection, createProducerConnection, waitUntilReady } from '@readpack/redis';
import { viewFromFields } from './status-view.js';
import { benchRedis, cleanups, deleteByPrefix, describeMachine, freePort, runBench, stopOnCleanUp, writeBenchSection } from './support.js';

/** One consumer's lease on each record (the fence every transition checks: packages/job-state/scripts/prelude.lua). */
const BENCH_LEASE = { series: 1, holder: 'extract:bench', epoch: 1, token: 'bench' };
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const settings = {
  connections: 50,
  durationS: Number(process.env.BENCH_DURATION_S ?? 5),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 3),
  /**
   * Rounds per target, interleaved (hello, GET, HMGET, status, hello, …). On a shared machine
   * load from elsewhere comes and goes: short interleaved runs, compared round by round and
   * summarised by the median, are far steadier than one long run per target.
   */
  rounds: Number(process.env.BENCH_ROUNDS ?? 5),
  memoryRecords: Number(process.env.BENCH_MEMORY_RECORDS ?? 10_000),
  memorySample: 200,
};

const GOALS = { throughputRatio: 0.9, bytesPerRecord: 2_048 };
const GOAL_SETUP = '1 process each';

/** hash-max-listpack-value as npm start, docker-compose and the tests configure Redis; Redis' default is 64. */
const TUNED_LISTPACK_VALUE = 1024;
const DEFAULT_LISTPACK_VALUE = 64;

// ───────────────────────── the baseline server (child process mode) ─────────────────────────

/**
 * The canonical Express 5 hello-world, plus two one-command routes that split the status route's
 * cost: `/string/:key` (one GET of a JSON string) and `/view/:key` (one HMGET of the record's
 * tenant and stored status document, sent as is: the status route's Redis work without Readpack). It loads the API's own copy of Express (resolved from apps/api): both sides run the same code.
 */
async function serveHelloWorld(): Promise<void> {
  const instances = Number(process.env.HELLO_INSTANCES ?? 1);
  if (instances > 1 && cluster.isPrimary) {
    const workers = Array.from({ length: instances }, () => cluster.fork());
    const stop = () => {
      for (const worker of workers) worker.process.kill('SIGTERM');
      process.exit(0);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return;
  }
  const express = createRequire(join(REPO_ROOT, 'apps', 'api', 'package.json'))('express') as () => Express;
  const redis = createProducerConnection({ url: requiredEnv('REDIS_URL'), commandTimeoutMs: 1_000 }, 'bench-hello');
  redis.on('error', (error: Error) => console.error('hello-world redis:', error.message));
  // Listen only once Redis answers: the bench checks every route once before measuring it.
  await waitUntilReady(redis, 20_000);
  const app = express();
  app.get('/', (_req, res) => {
    res.send('Hello World!');
  });
  app.get('/string/:key', async (req, res) => {
    res.type('json').send(await redis.get(String(req.params.key)));
  });
  app.get('/view/:key', async (req, res) => {
    const [, view] = await redis.hmget(String(req.params.key), 'tenant', 'view');
    res.type('json').send(view);
  });
  app.get('/hgetall/:key', async (req, res) => {
    const key = String(req.params.key);
    const fields = await redis.hgetall(key);
    res.type('json').send(viewFromFields(key.slice(key.lastIndexOf(':') + 1), fields));
  });
  app.listen(Number(requiredEnv('PORT')), '127.0.0.1');
  process.on('SIGTERM', () => process.exit(0));
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// ───────────────────────── processes and Redis ─────────────────────────




interface Child {
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Starts a child process that cleanUp stops, whatever happens. */
function startChild(command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = stopOnCleanUp(child);
  return { process: child, stop };
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then((r) => r.status, () => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last status ${status})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}


// ───────────────────────── realistic records ─────────────────────────

const DOCUMENTS = [
  { name: 'Quarterly report 2026-Q3 (final).docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 103_966 },
  { name: 'Rechnung REPAIR-2022-INV-001 mehrseitig.pdf', mediaType: 'application/pdf', size: 412_330 },
  { name: 'pricing-table_multiple sheets.xlsx', mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 11_520 },
  { name: 'scan_2026-11-29_0932.pdf', mediaType: 'application/pdf', size: 2_874_113 },
];

/** An id shaped like the API's (apps/api/src/ids.ts): `job_` + 128 random bits, base64url. */
function jobId(): string {
  return `job_${randomBytes(16).toString('base64url')}`;
}

function stateStore(redis: RedisClient, prefix: string): JobStateStore {
  const { ttl } = loadConfig({});
  return new JobStateStore(redis, {
    prefix,
    ttl: { queuedSeconds: ttl.queuedSeconds, processingSeconds: ttl.processingSeconds, resultSeconds: ttl.resultSeconds },
    leaseMs: 30_000,
    actor: PROCESS_IDENTITY,
  });
}

/** The transitions a real job goes through, from upload to `done`. Returns the job id. */
async function doneRecord(state: JobStateStore, index: number, tenant = 'default'): Promise<string> {
  const doc = DOCUMENTS[index % DOCUMENTS.length]!;
  const job: NewJob = { jobId: jobId(), tenant, source: { filename: doc.name, mediaType: doc.mediaType, size: doc.size, sha256: randomBytes(32).toString('hex') } };
  if (!(await state.createJob(job))) throw new Error(`job ${job.jobId} already existed`);
  await state.start(job, 'extract', BENCH_LEASE);
  await state.progress(job, BENCH_LEASE, { done: 1, total: 2 }, 'extract');
  await state.start(job, 'assemble', BENCH_LEASE);
  const completed = await state.complete(job, BENCH_LEASE, { packageId: job.jobId, size: 1_500 + (index % 50_000), sha256: randomBytes(32).toString('hex') });
  if (completed.status !== 'done') throw new Error(`job ${job.jobId} ended ${completed.status}`);
  return job.jobId;
}


// ───────────────────────── measurements ─────────────────────────

/**
 * CPU time (ms) used so far by `pid` and its descendants (a node:cluster primary and its
 * workers), from Linux /proc; NaN elsewhere. Unlike req/s it hardly moves when other work shares
 * the machine, so it is reported next to throughput as the noise-resistant view of the same cost.
 */
function treeCpuMs(pid: number): number {
  try {
    const stats = new Map<number, string[]>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        stats.set(Number(entry), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
      } catch {
        // The process ended while we listed /proc.
      }
    }
    const tree = new Set([pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [child, fields] of stats) {
        if (!tree.has(child) && tree.has(Number(fields[1]))) {
          tree.add(child);
          grew = true;
        }
      }
    }
    // utime + stime, in clock ticks (USER_HZ, 100 on Linux).
    return [...tree].reduce((sum, p) => sum + (Number(stats.get(p)?.[11]) + Number(stats.get(p)?.[12])) * 10, 0);
  } catch {
    return NaN;
  }
}

/** Redis's own CPU time (ms) so far, from INFO: works for a private server and for REDIS_URL. */
async function redisCpuMs(redis: RedisClient): Promise<number> {
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1_000;
}

interface Run {
  reqPerSec: number;
  p99Ms: number;
  failures: number;
  /** CPU time of the server process tree, and of Redis, per request answered. */
  serverCpuUs: number;
  redisCpuUs: number;
}

interface Target {
  label: string;
  url: string;
  serverPid: number;
  headers?: Record<string, string>;
}

interface TargetResult extends Target {
  runs: Run[];
}

async function run(target: Target, durationS: number, redis: RedisClient): Promise<Run> {
  const [server0, redis0] = [treeCpuMs(target.serverPid), await redisCpuMs(redis)];
  const result = await autocannon({ url: target.url, connections: settings.connections, duration: durationS, headers: target.headers });
  const [server1, redis1] = [treeCpuMs(target.serverPid), await redisCpuMs(redis)];
  const answered = Math.max(1, result.requests.total);
  return {
    reqPerSec: result.requests.average,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    serverCpuUs: ((server1 - server0) * 1_000) / answered,
    redisCpuUs: ((redis1 - redis0) * 1_000) / answered,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Warm-up for every target, then `rounds` interleaved runs of each (hello-world first in each round). */
async function measure(targets: Target[], redis: RedisClient): Promise<TargetResult[]> {
  for (const target of targets) {
    const res = await fetch(target.url, { headers: target.headers });
    if (res.status !== 200) throw new Error(`${target.label}: ${target.url} answered ${res.status}: ${await res.text()}`);
    await run(target, settings.warmupS, redis);
  }
  const results: TargetResult[] = targets.map((t) => ({ ...t, runs: [] }));
  for (let round = 0; round < settings.rounds; round += 1) {
    for (const result of results) {
      const r = await run(result, settings.durationS, redis);
      result.runs.push(r);
      console.log(`  ${result.label}: ${Math.round(r.reqPerSec)} req/s, p99 ${r.p99Ms} ms, server ${Math.round(r.serverCpuUs)} µs/req, redis ${Math.round(r.redisCpuUs)} µs/req${r.failures ? `, ${r.failures} failures` : ''}`);
    }
  }
  return results;
}

interface Variant {
  setup: string;
  results: TargetResult[];
}

interface Fixture {
  /** A done job of tenant BENCH_TENANT, polled with BENCH_KEY; and one of the dev-mode tenant. */
  statusJobId: string;
  devJobId: string;
  /** The record's hash key, and a string key holding the status view as JSON. */
  recordKey: string;
  stringKey: string;
  /** A copy of the record without its stored document, for the HGETALL + build-in-Node route. */
  bareRecordKey: string;
}

const BENCH_TENANT = 'bench';
const BENCH_KEY = `bench-${randomBytes(24).toString('base64url')}`;

/** Labels the report looks rows up by. */
const ROUTES = {
  hello: 'Express 5 hello-world',
  string: 'Express 5 + one Redis GET (the status JSON as a string)',
  stored: 'Express 5 + one HMGET of the record (tenant, stored status JSON built in Lua)',
  built: 'Express 5 + HGETALL of the record, status JSON built in Node',
  status: 'Readpack `GET /api/files/job/:id`, API_KEYS set (production path)',
  devStatus: 'Readpack `GET /api/files/job/:id`, dev mode (no keys)',
} as const;

async function throughputVariant(setup: string, instances: number, redis: RedisClient, redisUrl: string, prefix: string, fixture: Fixture): Promise<Variant> {
  console.log(`${setup}:`);
  const dataDir = mkdtempSync(join(tmpdir(), 'readpack-bench-data-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const [apiPort, helloPort] = [await freePort(), await freePort()];
  const env = { ...process.env, REDIS_URL: redisUrl, READPACK_PREFIX: prefix, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const apiEntry = instances > 1 ? join(REPO_ROOT, 'apps/api/dist/cluster.js') : join(REPO_ROOT, 'apps/api/dist/main.js');
  const devPort = await freePort();
  const api = startChild(process.execPath, [apiEntry], { ...env, PORT: String(apiPort), API_INSTANCES: String(instances), API_KEYS: `${BENCH_KEY}:${BENCH_TENANT}` });
  const devApi = startChild(process.execPath, [apiEntry], { ...env, PORT: String(devPort), API_INSTANCES: String(instances) });
  const hello = startChild(process.execPath, [SELF, '--hello-world'], { ...env, PORT: String(helloPort), HELLO_INSTANCES: String(instances) });
  const apiBase = `http://127.0.0.1:${apiPort}`;
  const devBase = `http://127.0.0.1:${devPort}`;
  const helloBase = `http://127.0.0.1:${helloPort}`;
  await Promise.all([waitForHttp(`${apiBase}/healthz`), waitForHttp(`${devBase}/healthz`), waitForHttp(`${helloBase}/`)]);
  const [apiPid, devPid, helloPid] = [api.process.pid!, devApi.process.pid!, hello.process.pid!];
  const results = await measure(
    [
      { label: ROUTES.hello, url: `${helloBase}/`, serverPid: helloPid },
      { label: ROUTES.string, url: `${helloBase}/string/${encodeURIComponent(fixture.stringKey)}`, serverPid: helloPid },
      { label: ROUTES.stored, url: `${helloBase}/view/${encodeURIComponent(fixture.recordKey)}`, serverPid: helloPid },
      { label: ROUTES.built, url: `${helloBase}/hgetall/${encodeURIComponent(fixture.bareRecordKey)}`, serverPid: helloPid },
      { label: ROUTES.status, url: `${apiBase}/api/files/job/${fixture.statusJobId}`, serverPid: apiPid, headers: { authorization: `Bearer ${BENCH_KEY}` } },
      { label: ROUTES.devStatus, url: `${devBase}/api/files/job/${fixture.devJobId}`, serverPid: devPid },
    ],
    redis,
  );
  // Stopped before the next variant starts, so they do not compete for the cores.
  await Promise.all([api.stop(), devApi.stop(), hello.stop()]);
  return { setup, results };
}

interface MemoryResult {
  /** Which Redis configuration this was measured under. */
  configuration: string;
  records: number;
  memoryUsageMean: number;
  memoryUsageMin: number;
  memoryUsageMax: number;
  usedMemoryDeltaPerRecord: number;
  /** How Redis stores the record, and why (fields longer than hash-max-listpack-value force a hashtable). */
  encoding: string;
  listpackValueLimit: number | undefined;
  longFields: string[];
}

async function usedMemory(redis: RedisClient): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
}

async function memoryPerRecord(redis: RedisClient, prefix: string, configuration: string): Promise<MemoryResult> {
  console.log(`memory (${configuration}): ${settings.memoryRecords} done records…`);
  const state = stateStore(redis, prefix);
  const before = await usedMemory(redis);
  const ids: string[] = [];
  const chunk = 250;
  for (let start = 0; start < settings.memoryRecords; start += chunk) {
    const size = Math.min(chunk, settings.memoryRecords - start);
    ids.push(...(await Promise.all(Array.from({ length: size }, (_, i) => doneRecord(state, start + i)))));
  }
  const after = await usedMemory(redis);
  const step = Math.max(1, Math.floor(ids.length / settings.memorySample));
  const usages: number[] = [];
  for (let i = 0; i < ids.length && usages.length < settings.memorySample; i += step) {
    usages.push(Number(await redis.call('MEMORY', 'USAGE', state.jobKey(ids[i]!), 'SAMPLES', '0')));
  }
  const sampleKey = state.jobKey(ids[0]!);
  // CONFIG may be disabled on a managed Redis: then the limit is simply not reported.
  const limitReply = (await redis.config('GET', 'hash-max-listpack-value').catch(() => [])) as string[];
  const listpackValueLimit = limitReply[1] === undefined ? undefined : Number(limitReply[1]);
  const fields = await redis.hgetall(sampleKey);
  return {
    configuration,
    records: ids.length,
    memoryUsageMean: usages.reduce((a, b) => a + b, 0) / usages.length,
    memoryUsageMin: Math.min(...usages),
    memoryUsageMax: Math.max(...usages),
    usedMemoryDeltaPerRecord: (after - before) / ids.length,
    encoding: String(await redis.object('ENCODING', sampleKey)),
    listpackValueLimit,
    longFields: Object.entries(fields)
      .filter(([, value]) => listpackValueLimit !== undefined && Buffer.byteLength(value) > listpackValueLimit)
      .map(([field, value]) => `\`${field}\` ${Buffer.byteLength(value)} B`),
  };
}

// ───────────────────────── report ─────────────────────────

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function render(variants: Variant[], memories: MemoryResult[], environment: string, redisNote: string): string {
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on \`${hostname()}\`: ${environment}.`,
    `autocannon, ${settings.connections} connections, ${settings.rounds} rounds × ${settings.durationS} s per route after ${settings.warmupS} s warm-up, routes interleaved`,
    `within each round; medians over rounds. Servers, ${redisNote} and autocannon share the machine's ${cpus().length} cores (other work ran on it too);`,
    cpus().length <= 2
      ? `with two server processes besides autocannon and Redis the ${cpus().length} cores are oversubscribed, so the load generator caps every route alike and throughput ratios there understate the server-side cost.`
      : 'the two-process rows have a core per server process.',
    'The record is a real `done` job written by JobStateStore. "× hello-world" is the median of the per-round throughput ratios;',
    '"by CPU" compares server CPU time per request instead, which other load on the machine hardly disturbs.',
    `The goal is judged on the ${GOAL_SETUP} comparison of the API with API_KEYS set (what production runs); dev mode is shown beside it.`,
    'The two-process rows show the same routes under node:cluster, where the bare one-GET and one-HMGET routes are the yardstick for the status route.',
    '',
    '| setup | route | req/s | p99 | × hello-world | server CPU / req | Redis CPU / req | × hello-world by CPU | goal ≥ 0.9× |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  const summaries: string[] = [];
  for (const { setup, results } of variants) {
    const hello = results[0]!;
    const cpuOf = (result: TargetResult) => median(result.runs.map((r) => r.serverCpuUs));
    results.forEach((result, index) => {
      const failures = result.runs.reduce((n, r) => n + r.failures, 0);
      const ratio = median(result.runs.map((r, round) => r.reqPerSec / hello.runs[round]!.reqPerSec));
      const cpuRatio = cpuOf(hello) / cpuOf(result);
      const judged = result.label === ROUTES.status && setup === GOAL_SETUP;
      const goal = index === 0 ? 'baseline' : judged ? (ratio >= GOALS.throughputRatio && failures === 0 ? '**met**' : '**missed**') : 'reference';
      lines.push(
        `| ${setup} | ${result.label}${failures ? ` (**${failures} failed requests**)` : ''} | ${fmt(median(result.runs.map((r) => r.reqPerSec)))} | ` +
          `${fmt(median(result.runs.map((r) => r.p99Ms)))} ms | ${fmt(ratio, 2)} | ${fmt(cpuOf(result))} µs | ${fmt(median(result.runs.map((r) => r.redisCpuUs)))} µs | ${fmt(cpuRatio, 2)} | ${goal} |`,
      );
    });
    const route = (label: string) => results.find((r) => r.label === label)!;
    const [status, devStatus, stored, built] = [route(ROUTES.status), route(ROUTES.devStatus), route(ROUTES.stored), route(ROUTES.built)];
    const extra = (result: TargetResult) => `${fmt(cpuOf(result) - cpuOf(hello))} µs`;
    summaries.push(
      `${setup}: a status request with API_KEYS costs ${extra(status)} of server CPU more than hello-world (dev mode ${extra(devStatus)}), the bare one-HMGET route ${extra(stored)}; ` +
        "the difference is Readpack's own handling (authentication, id and tenant checks, security headers). Differences of a few µs are within run-to-run noise.",
    );
    summaries.push(`${setup}: ${documentVerdict(stored, built, cpuOf)}`);
  }
  lines.push('', 'Where the time goes:', '', ...summaries.map((s) => `- ${s}`));
  const met = (bytes: number) => (bytes <= GOALS.bytesPerRecord ? '**met**' : '**missed**');
  lines.push(
    '',
    `Redis memory per terminal (\`done\`) job record (the stored status document included), ${fmt(memories[0]!.records)} records created through JobStateStore (create → start → progress → start → complete):`,
    '',
    '| Redis configuration | `MEMORY USAGE` per key, mean of ' + String(settings.memorySample) + ' (min–max) | `used_memory` delta per record (with expiry entry, dict growth) | encoding | goal ≤ 2 KB |',
    '| --- | ---: | ---: | --- | --- |',
  );
  // The goal is judged on Redis as Readpack configures it (npm start, docker-compose, README);
  // Redis' defaults are shown for whoever brings their own.
  memories.forEach((memory, index) => {
    const worst = Math.max(memory.memoryUsageMean, memory.usedMemoryDeltaPerRecord);
    const goal = index === 0 ? met(worst) : `reference (${fmt(worst)} B; set hash-max-listpack-value ${TUNED_LISTPACK_VALUE})`;
    lines.push(
      `| ${memory.configuration} | ${fmt(memory.memoryUsageMean)} B (${fmt(memory.memoryUsageMin)}–${fmt(memory.memoryUsageMax)}) | ${fmt(memory.usedMemoryDeltaPerRecord)} B | ` +
        `\`${memory.encoding}\`${memory.longFields.length > 0 ? ` (${memory.longFields.join(', ')} over the ${memory.listpackValueLimit} B listpack limit)` : ''} | ${goal} |`,
    );
  });
  return lines.join('\n');
}

/**
 * Stored (built in Lua at each change, one HMGET per poll) against built per poll in Node (one
 * HGETALL + JSON.stringify), from this run's numbers: server plus Redis CPU per request, and
 * throughput. The stored document is worth its Lua only if it costs less per poll.
 */
function documentVerdict(stored: TargetResult, built: TargetResult, cpuOf: (r: TargetResult) => number): string {
  const redisOf = (r: TargetResult) => median(r.runs.map((run) => run.redisCpuUs));
  const rateOf = (r: TargetResult) => median(r.runs.map((run) => run.reqPerSec));
  const storedCost = cpuOf(stored) + redisOf(stored);
  const builtCost = cpuOf(built) + redisOf(built);
  const saving = builtCost - storedCost;
  const figures =
    `the stored document costs ${fmt(cpuOf(stored))} + ${fmt(redisOf(stored))} µs (server + Redis CPU) per poll at ${fmt(rateOf(stored))} req/s; ` +
    `HGETALL + JSON.stringify in Node ${fmt(cpuOf(built))} + ${fmt(redisOf(built))} µs at ${fmt(rateOf(built))} req/s`;
  if (Math.abs(saving) < NOISE_US) return `${figures}: within ${NOISE_US} µs of each other, no measurable winner (the Lua builder earns nothing here).`;
  return saving > 0
    ? `${figures}: the Lua-built document wins by ${fmt(saving)} µs per poll (${fmt((saving / builtCost) * 100)} %).`
    : `${figures}: building in Node wins by ${fmt(-saving)} µs per poll (${fmt((-saving / storedCost) * 100)} %); the Lua builder does not pay for itself.`;
}

/** Per-request CPU differences below this are run-to-run noise on a shared machine. */
const NOISE_US = 3;

// ───────────────────────── main ─────────────────────────

async function main(): Promise<void> {
  // Tuned as npm start's Redis is (apps/supervisor/src/redis-server.ts), minus persistence.
  const redisInfo = await benchRedis(['--hash-max-listpack-value', String(TUNED_LISTPACK_VALUE)]);
  const redis = createConsumerConnection({ url: redisInfo.url }, 'bench-status');
  redis.on('error', (error: Error) => console.error('redis:', error.message));
  cleanups.push(() => redis.disconnect());
  await waitUntilReady(redis, 20_000);
  const prefix = `bench-status-${randomBytes(4).toString('hex')}`;
  cleanups.push(() => deleteByPrefix(redis, prefix));

  const state = stateStore(redis, prefix);
  const statusJobId = await doneRecord(state, 0, BENCH_TENANT);
  const devJobId = await doneRecord(state, 1);
  const fixture: Fixture = {
    statusJobId,
    devJobId,
    recordKey: state.jobKey(statusJobId),
    stringKey: `${prefix}:bench-view:${statusJobId}`,
    bareRecordKey: `${prefix}:bench-bare:${statusJobId}`,
  };
  const stored = (await state.getJobView(statusJobId))?.json ?? '';
  await redis.set(fixture.stringKey, stored);
  const { view: _view, ...bare } = await redis.hgetall(fixture.recordKey);
  await redis.hset(fixture.bareRecordKey, bare);
  // The two routes must serve the very same bytes, or the comparison means nothing.
  const builtInNode = viewFromFields(statusJobId, bare);
  if (builtInNode !== stored) throw new Error(`the Node-built status document differs from the stored one:\n${builtInNode}\n${stored}`);
  const variants = [
    await throughputVariant(GOAL_SETUP, 1, redis, redisInfo.url, prefix, fixture),
    await throughputVariant('node:cluster, 2 processes each', 2, redis, redisInfo.url, prefix, fixture),
  ];
  cleanups.push(() => deleteByPrefix(redis, `${prefix}-memory`));
  const memories = [await memoryPerRecord(redis, `${prefix}-memory`, redisInfo.private ? `as \`npm start\` runs it (hash-max-listpack-value ${TUNED_LISTPACK_VALUE})` : 'the Redis at REDIS_URL')];
  if (redisInfo.private) {
    // A Redis you bring yourself with its defaults: the same records, measured for comparison.
    await redis.config('SET', 'hash-max-listpack-value', String(DEFAULT_LISTPACK_VALUE));
    cleanups.push(() => deleteByPrefix(redis, `${prefix}-memory-defaults`));
    memories.push(await memoryPerRecord(redis, `${prefix}-memory-defaults`, `Redis defaults (hash-max-listpack-value ${DEFAULT_LISTPACK_VALUE})`));
  }

  const redisVersion = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '?';
  const environment = describeMachine(`Redis ${redisVersion}`);
  const redisNote = redisInfo.private ? 'a private redis-server (loopback, no persistence)' : 'the Redis at REDIS_URL';
  writeBenchSection('status', render(variants, memories, environment, redisNote));
}

if (process.argv.includes('--hello-world')) {
  await serveHelloWorld();
} else {
  await runBench(main);
}
