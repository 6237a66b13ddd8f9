import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { JobStateStore } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import { bullPrefix, deadLetterQueueName, jobRefFields, QUEUES, type DeadLetter, type ExtractPayload, type QueueName, type QueueProducer } from '@readpack/queues';
import type { RedisClient } from '@readpack/redis';
import type { Classified } from './failures.js';

/**
 * Dead-letter queues, one per stage (`<stage>-dlq`), built on BullMQ because it has none of its own.
 *
 * A job that fails for good with a code an operator can act on (deadLettered in @readpack/job-state:
 * transient and internal errors after their retries, poison, unknown; never a document error the
 * user caused, which is only counted) is written here by the runner's one final-failure path, with
 * its payload, error, attempts and timestamps, under its own BullMQ id: a redelivery that writes it
 * again keeps one entry. The entry is then PARKED: the DLQ worker fails it on purpose, so it
 * sits in the DLQ's `failed` list, visible in Bull Board with the original error. Retrying a
 * parked entry (Bull Board's Retry button, or `npm run ops -- dlq replay`) runs it once more, and
 * that run REPLAYS the job: its record goes back to `queued` in a new attempt series (history
 * kept) and the document runs again from extract under new series ids. Whatever stage gave up:
 * a stage works on what the earlier stages produced in the same series (assemble waits for the
 * render → OCR or MinerU children that extract adds), so re-running assemble alone would
 * assemble from nothing, or from another engine than the one asked for.
 */
export type { DeadLetter };

export const DEAD_LETTER_RETENTION = { removeOnComplete: true, removeOnFail: { age: 30 * 86_400 } } as const;

export class DeadLetterWriter {
  private readonly queue: Queue;

  constructor(
    private readonly stage: QueueName,
    connection: RedisClient,
    prefix: string,
    onError: (error: Error) => void,
  ) {
    this.queue = new Queue(deadLetterQueueName(stage), { connection, prefix: bullPrefix(prefix) });
    this.queue.on('error', onError);
  }

  async write(job: Job, failure: Classified): Promise<void> {
    const entry: DeadLetter = {
      stage: this.stage,
      bullJobId: String(job.id),
      payload: job.data as Record<string, unknown>,
      error: { code: failure.code, message: failure.message },
      attemptsMade: job.attemptsMade,
      attemptsStarted: job.attemptsStarted,
      firstQueuedAt: new Date(job.timestamp).toISOString(),
      failedAt: new Date().toISOString(),
      stacktrace: (job.stacktrace ?? []).slice(-3),
      ...(job.opts.priority ? { priority: job.opts.priority } : {}),
    };
    await this.queue.add('dead-letter', entry, { jobId: String(job.id), ...DEAD_LETTER_RETENTION });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** Parks new entries; replays parked ones that an operator retried. Runs in each stage's consumer. */
export function startDeadLetterWorker(
  stage: QueueName,
  deps: { connection: RedisClient; prefix: string; state: JobStateStore; producer: QueueProducer; logger: Logger },
): Worker {
  const worker = new Worker(
    deadLetterQueueName(stage),
    async (job: Job<DeadLetter>) => {
      // First run: park (fail on purpose). A retried entry keeps its attempt count, a stalled
      // first run does not: only an operator's retry of a parked entry replays the job.
      if (job.attemptsMade === 0) throw new UnrecoverableError(`${job.data.error.code}: ${job.data.error.message}`);
      await replay(job.data, deps);
    },
    { connection: deps.connection, prefix: bullPrefix(deps.prefix), concurrency: 1 },
  );
  worker.on('error', (error) => deps.logger.error('dead-letter worker error', { stage, error: error.message }));
  return worker;
}

async function replay(entry: DeadLetter, deps: { state: JobStateStore; producer: QueueProducer; logger: Logger }): Promise<void> {
  const payload = QUEUES[entry.stage].payload.parse(entry.payload);
  const ref = { jobId: payload.jobId, batchId: payload.batchId };
  const outcome = await deps.state.replay(ref);
  const logger = deps.logger.child({ jobId: payload.jobId, stage: entry.stage });
  if (!outcome.applied) {
    logger.warn('replay skipped: the job is not failed', { status: outcome.status });
    return;
  }
  const secrets = 'secrets' in payload ? payload.secrets : undefined;
  const rerun: ExtractPayload = { ...jobRefFields(payload), series: outcome.series, source: payload.source, options: payload.options, ...(secrets ? { secrets } : {}) };
  // A job without a priority would run before every prioritised job: keep the one it had (or the
  // best one, for entries written before priorities were kept).
  await deps.producer.add('extract', rerun, { priority: entry.priority ?? 1 });
  logger.info('job replayed from the dead-letter queue: the document runs again from extract', { series: outcome.series, previousError: entry.error.code });
}
