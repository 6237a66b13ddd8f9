import { Queue, type Job } from 'bullmq';
import { deadLetterQueueName, QUEUES, WEBHOOK_DLQ, type DeadLetter, type QueueName, type WebhookDeadLetter } from '@readpack/queues';
import type { OpsContext } from './connection.js';
import { printTable } from './table.js';

/** A dead-letter queue: one per stage, and the webhook deliveries' (`webhook-dlq`). */
export type DeadLetterSource = QueueName | 'webhook';

export function stagesFrom(arg: string | undefined): DeadLetterSource[] {
  if (!arg) return [...(Object.keys(QUEUES) as QueueName[]), 'webhook'];
  const stage = arg.replace(/-dlq$/, '');
  if (stage === 'webhook') return ['webhook'];
  if (!(stage in QUEUES)) throw new Error(`unknown stage ${arg}; one of ${Object.keys(QUEUES).join(', ')}, webhook`);
  return [stage as QueueName];
}

function queueName(source: DeadLetterSource): string {
  return source === 'webhook' ? WEBHOOK_DLQ : deadLetterQueueName(source);
}

/** The job id an entry is about, whichever kind of dead letter it is. */
function jobIdOf(source: DeadLetterSource, job: Job): string {
  return source === 'webhook' ? (job.data as WebhookDeadLetter).delivery.jobId : String((job.data as DeadLetter).payload.jobId ?? '');
}

/** `readpack ops dlq list [stage|webhook]`: parked dead letters. */
export async function listDeadLetters({ connection, prefix }: OpsContext, sources: DeadLetterSource[]): Promise<number> {
  const rows: string[][] = [['queue', 'jobId', 'bullJobId', 'code', 'attempts', 'failedAt', 'message']];
  for (const source of sources) {
    const queue = new Queue(queueName(source), { connection, prefix });
    for (const job of await queue.getJobs(['failed', 'waiting', 'active'], 0, 999)) {
      if (source === 'webhook') {
        const d = job.data as WebhookDeadLetter;
        rows.push([queue.name, d.delivery.jobId, d.delivery.deliveryId, 'webhook_undelivered', String(d.attemptsMade), d.failedAt, `${new URL(d.delivery.url).host}: ${d.error}`.slice(0, 80)]);
      } else {
        const d = job.data as DeadLetter;
        rows.push([queue.name, String(d.payload.jobId ?? ''), d.bullJobId, d.error.code, String(d.attemptsStarted), d.failedAt, d.error.message.slice(0, 80)]);
      }
    }
    await queue.close();
  }
  printTable(rows);
  return 0;
}

/**
 * `readpack ops dlq replay <stage|webhook> <jobId>|--all`: the same path as Bull Board's Retry on
 * the entry. A stage's entry replays the job; a webhook entry delivers the event again.
 */
export async function replayDeadLetters({ connection, prefix }: OpsContext, source: DeadLetterSource, target: string): Promise<number> {
  const queue = new Queue(queueName(source), { connection, prefix });
  try {
    const parked = await queue.getJobs(['failed'], 0, -1);
    const chosen = target === '--all' ? parked : parked.filter((j) => jobIdOf(source, j) === target || j.id === target);
    if (chosen.length === 0) {
      process.stderr.write(`no parked dead letter for ${target} in ${queue.name}\n`);
      return 1;
    }
    for (const job of chosen) {
      await job.retry('failed');
      process.stdout.write(`replay queued: ${queue.name} ${jobIdOf(source, job)} (a ${source} consumer ${source === 'webhook' ? 'delivers it again' : 'replays it'})\n`);
    }
    return 0;
  } finally {
    await queue.close();
  }
}
