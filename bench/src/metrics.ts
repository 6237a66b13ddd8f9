/**
 * `npm run bench:metrics`: what a Prometheus scrape of `GET /metrics` costs, on the real API
 * process(es): one process (main.js), then a node:cluster of two (cluster.ts), where the worker
 * asked must get the primary to collect every worker's registry over IPC. Before measuring, HTTP
 * traffic fills the request metrics and a fleet of consumer snapshots is written to Redis as
 * consumers write them (12 consumers over the six stages, histograms filled), so the scrape
 * reads, sums and prints a realistic amount. Sequential scrapes over one keep-alive connection,
 * as Prometheus scrapes; the goal is p99 under 5 ms.
 *
 * Results go to the `bench:metrics` section of docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STAGES } from '@readpack/config';
import { consumerMetricsIndexKey, consumerMetricsKey } from '@readpack/queues';
import { createProducerConnection, waitUntilReady } from '@readpack/redis';
import { benchRedis, cleanups, deleteByPrefix, describeMachine, freePort, runBench, stopOnCleanUp, writeBenchSection } from './support.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 2_000);
const WARMUP = 200;
const CONSUMERS = 12;
const GOAL_P99_MS = 5;

async function consumerSnapshot(stage: string, seed: number): Promise<string> {
  const registry = new Registry();
  const labelNames = ['stage', 'outcome'];
  const jobs = new Counter({ name: 'readpack_stage_jobs_total', help: 'h', labelNames, registers: [registry] });
  const duration = new Histogram({ name: 'readpack_stage_duration_seconds', help: 'h', labelNames, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [registry] });
  const failures = new Counter({ name: 'readpack_job_failures_total', help: 'h', labelNames: ['stage', 'code'], registers: [registry] });
  new Counter({ name: 'readpack_stage_pages_total', help: 'h', labelNames: ['stage'], registers: [registry] }).inc({ stage }, seed * 10);
  new Counter({ name: 'readpack_takeovers_total', help: 'h', labelNames: ['stage'], registers: [registry] }).inc({ stage }, seed % 3);
  new Gauge({ name: 'readpack_stage_active_jobs', help: 'h', labelNames: ['stage'], registers: [registry] }).set({ stage }, seed % 4);
  new Gauge({ name: 'readpack_stage_concurrency', help: 'h', labelNames: ['stage'], registers: [registry] }).set({ stage }, 4);
  for (let i = 0; i < 500; i++) {
    const outcome = i % 10 === 0 ? 'failed' : 'completed';
    jobs.inc({ stage, outcome });
    duration.observe({ stage, outcome }, ((i * 7 + seed) % 100) / 10);
  }
  for (const code of ['corrupt_document', 'timeout', 'encrypted_document']) failures.inc({ stage, code }, seed);
  return JSON.stringify(await registry.getMetricsAsJSON());
}

async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await fetch(url).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Result {
  setup: string;
  /** The same loop on /healthz, same process, same moment: what the machine gives any request. */
  baselineP99: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  bytes: number;
}

async function measure(setup: string, entry: string, env: NodeJS.ProcessEnv): Promise<Result> {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = stopOnCleanUp(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`);
  // Traffic of several routes and statuses, so the HTTP histograms have series to sum.
  const paths = ['/healthz', '/readyz', '/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA', '/api/files/batch/batch_AAAAAAAAAAAAAAAAAAAAAA', '/api/nothing', '/api/openapi.json'];
  for (let i = 0; i < 600; i++) await (await fetch(`${base}${paths[i % paths.length]!}`)).arrayBuffer();
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  let bytes = 0;
  for (let i = 0; i < WARMUP; i++) bytes = (await (await fetch(`${base}/metrics`, { headers })).arrayBuffer()).byteLength;
  // Interleaved with /healthz, so load from elsewhere on a shared machine hits both alike.
  const times: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    let started = performance.now();
    const res = await fetch(`${base}/metrics`, { headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
    started = performance.now();
    await (await fetch(`${base}/healthz`)).arrayBuffer();
    baseline.push(performance.now() - started);
  }
  await stop();
  const q = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;
  const result = { setup, baselineP99: q(baseline, 0.99), p50: q(times, 0.5), p90: q(times, 0.9), p99: q(times, 0.99), max: Math.max(...times), bytes };
  console.log(`${setup}: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms, ${bytes} bytes; /healthz p99 ${result.baselineP99.toFixed(2)} ms`);
  return result;
}

await runBench(async () => {
  const redisInfo = await benchRedis();
  const prefix = `bench-metrics-${process.pid}`;
  const redis = createProducerConnection({ url: redisInfo.url, commandTimeoutMs: 5_000 }, 'bench-metrics');
  await waitUntilReady(redis);
  cleanups.push(async () => {
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
  });
  const now = Date.now();
  for (let i = 0; i < CONSUMERS; i++) {
    const stage = STAGES[i % STAGES.length]!;
    const key = consumerMetricsKey(prefix, stage, `bench-host-${i}:${1000 + i}`);
    // A long TTL: the snapshots must outlive the run (consumers would refresh them every 2 s).
    await redis.multi().set(key, await consumerSnapshot(stage, i + 1), 'PX', 600_000).zadd(consumerMetricsIndexKey(prefix), now + 600_000, key).exec();
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'readpack-bench-metrics-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...process.env, REDIS_URL: redisInfo.url, READPACK_PREFIX: prefix, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ADMIN_TOKEN };
  const results = [
    await measure('1 process (main.js)', join(REPO_ROOT, 'apps/api/dist/main.js'), env),
    await measure('node:cluster, 2 workers (cluster.ts, IPC aggregation)', join(REPO_ROOT, 'apps/api/dist/cluster.js'), { ...env, API_INSTANCES: '2' }),
  ];
  const verdict = (r: Result) => (r.p99 < GOAL_P99_MS ? 'met' : 'missed');
  const rows = results.map((r) => `| ${r.setup} | ${r.p50.toFixed(2)} | ${r.p90.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(2)} | ${r.baselineP99.toFixed(2)} | ${r.bytes} | ${verdict(r)} |`);
  writeBenchSection(
    'metrics',
    [
      '### `npm run bench:metrics`: cost of a Prometheus scrape',
      '',
      describeMachine(`${SCRAPES} sequential scrapes after ${WARMUP} warm-up, ${CONSUMERS} consumer snapshots in Redis, goal p99 < ${GOAL_P99_MS} ms`),
      '',
      `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} (a p99 above the /healthz p99 of the same moment is the scrape's own cost; below it, the machine's).`,
      '',
      '| setup | p50 ms | p90 ms | p99 ms | max ms | /healthz p99 ms | body bytes | goal |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
});
