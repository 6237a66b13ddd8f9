import { Queue, type Job } from 'bullmq';
import { deadLetterQueueName, QUEUES, type DeadLetter, type QueueName } from '@readpack/queues';
import type { OpsContext } from './connection.js';
import { printTable } from './table.js';

export function stagesFrom(arg: string | undefined): QueueName[] {
  if (!arg) return Object.keys(QUEUES) as QueueName[];
  const stage = arg.replace(/-dlq$/, '');
  if (!(stage in QUEUES)) throw new Error(`unknown stage ${arg}; one of ${Object.keys(QUEUES).join(', ')}`);
  return [stage as QueueName];
}

/** `readpack ops dlq list [stage]`: parked dead letters. */
export async function listDeadLetters({ connection, prefix }: OpsContext, stages: QueueName[]): Promise<number> {
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

/** `readpack ops dlq replay <stage> <jobId>|--all`: the same path as Bull Board's Retry on the entry. */
export async function replayDeadLetters({ connection, prefix }: OpsContext, stage: QueueName, target: string): Promise<number> {
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
      process.stdout.write(`replay queued: ${queue.name} ${String(job.data.payload.jobId)} (a ${stage} consumer replays it)\n`);
    }
    return 0;
  } finally {
    await queue.close();
  }
}
