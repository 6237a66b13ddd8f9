import { Queue, type Job } from 'bullmq';
import { ConfigError, loadConfig } from '@readpack/config';
import { bullPrefix, deadLetterQueueName, MAINTENANCE_QUEUE, MAINTENANCE_TASKS, QUEUES, type QueueName } from '@readpack/queues';
import { deadLettered, isJobErrorCode, JobStateStore } from '@readpack/job-state';
import { createConsumerConnection } from '@readpack/redis';
import type { DeadLetter } from './dead-letters.js';
import { resolveRedisUrl } from './ops-redis-url.js';

/**
 * Operator commands (`npm run ops -- <command>`):
 *   dlq list [stage]                   parked dead letters, newest first
 *   dlq replay <stage> <jobId>|--all   replay: the same path as Bull Board's Retry on the DLQ entry
 *   schedulers                         periodic tasks; flags duplicates and missing ones (exit 1)
 *   failures                           failed jobs counted by code, with whether each code is dead-lettered
 */
const USAGE = 'usage: npm run ops -- dlq list [stage] | dlq replay <stage> <jobId>|--all | schedulers | failures';

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const url = await resolveRedisUrl(config);
  const connection = createConsumerConnection({ url }, 'readpack-ops');
  const prefix = bullPrefix(config.redis.prefix);
  try {
    const [command, sub, ...rest] = argv;
    if (command === 'schedulers') return await schedulers(new Queue(MAINTENANCE_QUEUE, { connection, prefix }));
    if (command === 'failures') return await failures(connection, config.redis.prefix);
    if (command === 'dlq' && sub === 'list') return await listDeadLetters(stagesFrom(rest[0]), connection, prefix);
    if (command === 'dlq' && sub === 'replay' && rest[0] && rest[1]) {
      return await replayDeadLetters(stagesFrom(rest[0])[0]!, rest[1], connection, prefix);
    }
    process.stderr.write(`${USAGE}\n`);
    return 2;
  } finally {
    connection.disconnect();
  }
}

function stagesFrom(arg: string | undefined): QueueName[] {
  if (!arg) return Object.keys(QUEUES) as QueueName[];
  const stage = arg.replace(/-dlq$/, '');
  if (!(stage in QUEUES)) throw new Error(`unknown stage ${arg}; one of ${Object.keys(QUEUES).join(', ')}`);
  return [stage as QueueName];
}

type Connection = ReturnType<typeof createConsumerConnection>;

async function listDeadLetters(stages: QueueName[], connection: Connection, prefix: string): Promise<number> {
  const rows: string[][] = [['queue', 'jobId', 'bullJobId', 'code', 'attempts', 'failedAt', 'message']];
  for (const stage of stages) {
    const queue = new Queue(deadLetterQueueName(stage), { connection, prefix });
    for (const job of (await queue.getJobs(['failed', 'waiting', 'active'], 0, 999)) as Job<DeadLetter>[]) {
      const d = job.data;
      rows.push([queue.name, String(d.payload.jobId ?? ''), d.bullJobId, d.error.code, String(d.attemptsStarted), d.failedAt, d.error.message.slice(0, 80)]);
    }
    await queue.close();
  }
  printTable(rows);
  return 0;
}

async function replayDeadLetters(stage: QueueName, target: string, connection: Connection, prefix: string): Promise<number> {
  const queue = new Queue(deadLetterQueueName(stage), { connection, prefix });
  try {
    const parked = (await queue.getJobs(['failed'], 0, -1)) as Job<DeadLetter>[];
    const chosen = target === '--all' ? parked : parked.filter((j) => j.data.payload.jobId === target || j.id === target);
    if (chosen.length === 0) {
      process.stderr.write(`no parked dead letter for ${target} in ${queue.name}\n`);
      return 1;
    }
    for (const job of chosen) {
      await job.retry('failed');
      process.stdout.write(`replay queued: ${queue.name} ${job.data.payload.jobId} (a ${stage} consumer replays it)\n`);
    }
    return 0;
  } finally {
    await queue.close();
  }
}

async function schedulers(queue: Queue): Promise<number> {
  try {
    const list = await queue.getJobSchedulers(0, -1, true);
    const rows = [['id', 'every (ms)', 'next run', 'flag']];
    let problems = 0;
    const seen = new Map<string, number>();
    for (const s of list) seen.set(s.name, (seen.get(s.name) ?? 0) + 1);
    for (const s of list) {
      const known = (MAINTENANCE_TASKS as readonly string[]).includes(s.key);
      const duplicate = (seen.get(s.name) ?? 0) > 1;
      const flag = !known ? 'UNKNOWN (not a Readpack task id)' : duplicate ? 'DUPLICATE' : '';
      if (flag) problems += 1;
      rows.push([s.key, String(s.every ?? s.pattern ?? ''), s.next ? new Date(s.next).toISOString() : '', flag]);
    }
    for (const task of MAINTENANCE_TASKS) {
      if (!list.some((s) => s.key === task)) {
        rows.push([task, '', '', 'MISSING (starts with the first consumer)']);
        problems += 1;
      }
    }
    printTable(rows);
    return problems === 0 ? 0 : 1;
  } finally {
    await queue.close();
  }
}

/** Failed jobs by code (scripts/fail.lua counts every one): user mistakes show here, not in the DLQs. */
async function failures(connection: Connection, statePrefix: string): Promise<number> {
  const store = new JobStateStore(connection, { prefix: statePrefix, ttl: { queuedSeconds: 1, processingSeconds: 1, resultSeconds: 1 }, leaseMs: 1, actor: 'ops' });
  const counts = Object.entries(await store.failureCounts()).sort(([, a], [, b]) => b - a);
  printTable([['code', 'failed jobs', 'dead-lettered'], ...counts.map(([code, n]) => [code, String(n), isJobErrorCode(code) && deadLettered(code) ? 'yes' : 'no'])]);
  return 0;
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  for (const row of rows) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
