/**
 * `npm run bench:sweeper`: what one sweep costs, with 0 and with 100,000 finished records beside
 * 100 live ones (goal: independent of the finished count).
 *
 * For each size, on a private Redis: the finished records are made as consumers make them (create,
 * start, complete), then 100 live records (started, leases running). Measured, each as the median
 * of several sweeps: the sweeper as it is (apps/worker/src/maintenance/sweeper.ts: reads only the
 * live-lease index's expired entries), and the previous sweeper's read of the world (SCAN over
 * every record + HGETALL of each), which the index replaced. Then 100 leases lapse while their
 * jobs are still queued (a takeover pending) and one sweep handles them, so the sweeper is also
 * timed doing work. Cost = wall time and Redis commands (INFO `total_commands_processed`, which
 * counts the commands scripts run as well as the clients' own).
 *
 * Results go to the `bench:sweeper` section of docs/benchmarks.md.
 */
import { hostname, loadavg } from 'node:os';
import { Queue } from 'bullmq';
import type { RedisClient } from '@readpack/redis';
import { JobStateStore } from '@readpack/job-state';
import { bullPrefix, QUEUES, type QueueName } from '@readpack/queues';
import { createConsumerConnection } from '@readpack/redis';
// The built sweeper, as consumers run it (apps/worker is a referenced project: built first).
import { sweepOrphans } from '../../apps/worker/dist/maintenance/sweeper.js';
import { benchRedis, deleteByPrefix, describeMachine, runBench, writeBenchSection } from './support.js';

const settings = {
  sizes: [0, Number(process.env.BENCH_SWEEPER_FINISHED ?? 100_000)],
  live: 100,
  sweeps: 7,
  scans: 3,
};

const TTL = { queuedSeconds: 3_600, processingSeconds: 3_600, resultSeconds: 86_400 };
const source = { filename: 'bench.pdf', mediaType: 'application/pdf', size: 1_000, sha256: 'a'.repeat(64) };
const lease = (jobId: string) => ({ series: 1, holder: `extract:${jobId}`, epoch: 1, token: 'bench' });

interface Cost {
  ms: number;
  commands: number;
}

interface SizeResult {
  finished: number;
  sweep: Cost;
  examined: number;
  scan: Cost;
  scanned: number;
  busySweep: Cost;
  busyExamined: number;
  busyRearmed: number;
}

async function commandsProcessed(redis: RedisClient): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? 0);
}

/** Wall time and Redis commands of `work` (the INFO call that counts them is subtracted). */
async function measure<T>(redis: RedisClient, work: () => Promise<T>): Promise<{ cost: Cost; result: T }> {
  const before = await commandsProcessed(redis);
  const start = performance.now();
  const result = await work();
  const ms = performance.now() - start;
  const commands = (await commandsProcessed(redis)) - before - 1;
  return { cost: { ms, commands }, result };
}

function median<T>(values: T[], key: (v: T) => number): T {
  return [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)]!;
}

async function inBatches(count: number, make: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 2_000) await Promise.all(Array.from({ length: Math.min(2_000, count - i) }, (_, k) => make(i + k)));
}

/** The previous sweeper's read of the world: every record, a SCAN page at a time, one HGETALL each. */
async function scanEverything(state: JobStateStore): Promise<number> {
  let records = 0;
  for await (const ids of state.scanJobIds()) for (const id of ids) if (await state.getJob(id)) records += 1;
  return records;
}

async function oneSize(url: string, finished: number): Promise<SizeResult> {
  const prefix = `bench-sweeper-${finished}`;
  const redis = createConsumerConnection({ url }, 'bench-sweeper');
  const state = new JobStateStore(redis, { prefix, ttl: TTL, leaseMs: 600_000, actor: 'bench:1' });
  const lapsing = new JobStateStore(redis, { prefix, ttl: TTL, leaseMs: 1, actor: 'bench:2' });
  const queues = Object.fromEntries((Object.keys(QUEUES) as QueueName[]).map((s) => [s, new Queue(QUEUES[s].name, { connection: redis, prefix: bullPrefix(prefix) })])) as Record<QueueName, Queue>;
  try {
    console.log(`${finished} finished records…`);
    await inBatches(finished, async (i) => {
      const ref = { jobId: `done-${i}` };
      await state.createJob({ ...ref, tenant: 't', source });
      await state.start(ref, 'extract', lease(ref.jobId));
      await state.complete(ref, lease(ref.jobId), { packageId: ref.jobId, size: 1_500, sha256: 'b'.repeat(64) });
    });
    await inBatches(settings.live, async (i) => {
      const ref = { jobId: `live-${i}` };
      await state.createJob({ ...ref, tenant: 't', source });
      await state.start(ref, 'extract', lease(ref.jobId));
    });
    const sweep = () => sweepOrphans(state, queues, { recheckMs: 300_000 });
    const sweeps = [];
    for (let i = 0; i < settings.sweeps; i += 1) sweeps.push(await measure(redis, sweep));
    const scans = [];
    for (let i = 0; i < settings.scans; i += 1) scans.push(await measure(redis, () => scanEverything(state)));

    // 100 leases lapse while their jobs are still queued: the sweeper looks each one up and re-arms it.
    await inBatches(settings.live, async (i) => {
      const ref = { jobId: `lapsed-${i}` };
      await state.createJob({ ...ref, tenant: 't', source });
      await lapsing.start(ref, 'extract', lease(ref.jobId));
      await queues.extract.add('extract', { bench: i }, { jobId: ref.jobId, delay: 600_000 });
    });
    await new Promise((r) => setTimeout(r, 20));
    const busy = await measure(redis, sweep);

    const s = median(sweeps, (m) => m.cost.ms);
    const c = median(scans, (m) => m.cost.ms);
    return {
      finished,
      sweep: s.cost,
      examined: s.result.examined,
      scan: c.cost,
      scanned: c.result,
      busySweep: busy.cost,
      busyExamined: busy.result.examined,
      busyRearmed: busy.result.rearmed,
    };
  } finally {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function render(results: SizeResult[], environment: string): string {
  const [small, large] = [results[0]!, results.at(-1)!];
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on \`${hostname()}\`: ${environment}; a private redis-server on loopback, no persistence, sharing the machine.`,
    '',
    `**One sweep** beside ${settings.live} live records (leases running), with 0 and with ${fmt(large.finished)} finished records. The sweeper reads the live-lease`,
    `index's expired entries only (median of ${settings.sweeps} sweeps); the previous sweeper's read of the world — SCAN over every record, one HGETALL`,
    `each — is measured on the same data (median of ${settings.scans}). Then ${settings.live} leases lapse while their jobs are still queued (a takeover pending) and one`,
    'sweep looks up each job by its id and re-arms the entry. Commands: Redis `total_commands_processed` (the commands scripts run included).',
    '',
    `| finished records | sweep: time | sweep: Redis commands | entries examined | SCAN + HGETALL: time | SCAN + HGETALL: Redis commands | records read | sweep with ${settings.live} lapsed leases: time | Redis commands | re-armed |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    lines.push(
      `| ${fmt(r.finished)} | ${fmt(r.sweep.ms, 2)} ms | ${fmt(r.sweep.commands)} | ${fmt(r.examined)} | ${fmt(r.scan.ms)} ms | ${fmt(r.scan.commands)} | ${fmt(r.scanned)} | ${fmt(r.busySweep.ms, 1)} ms | ${fmt(r.busySweep.commands)} | ${fmt(r.busyRearmed)} |`,
    );
  }
  const same = small.sweep.commands === large.sweep.commands && small.busySweep.commands === large.busySweep.commands;
  lines.push(
    '',
    `Redis commands per sweep with ${fmt(large.finished)} finished records: ${fmt(large.sweep.commands)} idle and ${fmt(large.busySweep.commands)} with ${settings.live} lapsed leases, against ${fmt(small.sweep.commands)} and ${fmt(small.busySweep.commands)} with none: ` +
      `${same ? 'the same, so the sweeper\'s work does not depend on the finished count' : 'they differ, so the sweeper\'s work DOES depend on the finished count'}. ` +
      `The previous read of the world took ${fmt(large.scan.commands)} commands and ${fmt(large.scan.ms)} ms at ${fmt(large.finished)} finished records (${fmt(large.scan.ms / Math.max(large.sweep.ms, 0.01))}× the idle sweep's time).`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  // As Readpack configures Redis (docs/architecture.md): records stay listpack-encoded.
  const redisInfo = await benchRedis(['--hash-max-listpack-value', '1024']);
  const results: SizeResult[] = [];
  for (const finished of settings.sizes) results.push(await oneSize(redisInfo.url, finished));
  const probe = createConsumerConnection({ url: redisInfo.url }, 'bench-info');
  const redisVersion = /redis_version:(\S+)/.exec(await probe.info('server'))?.[1] ?? '?';
  probe.disconnect();
  const load = `load average ${fmt(loadBefore, 1)} at the start, ${fmt(loadavg()[0]!, 1)} at the end`;
  writeBenchSection('sweeper', render(results, describeMachine(`Redis ${redisVersion}`, load)));
}

await runBench(main);
