import { resolve } from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import { JobStateStore, type JobRef } from '@readpack/job-state';
import { jobLogger, PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import { openStorage } from '@readpack/package-store';
import { bullPrefix, QueueProducer, QUEUES } from '@readpack/queues';
import { createConsumerConnection } from '@readpack/redis';
import { classify } from './failures.js';
import { ParsePool } from './parse-pool.js';
import type { StageHandler, StageServices } from './stage.js';
import { handlerFor } from './stages/index.js';

export interface RunningConsumer {
  stage: Stage;
  worker: Worker;
  /** Stops taking jobs, lets running ones finish within the grace period, releases everything. */
  close(graceMs?: number): Promise<void>;
}

/** Starts one stage's BullMQ consumer in this process. */
export async function startConsumer(stage: Stage, config: Config, logger: Logger): Promise<RunningConsumer> {
  const handler = handlerFor(stage) as StageHandler<Stage>;
  const definition = QUEUES[stage];
  const connection = createConsumerConnection({ url: config.redis.url }, `readpack-${stage}:${PROCESS_IDENTITY}`);
  connection.on('error', (error: Error) => logger.warn('redis connection error', { stage, error: error.message }));
  const services: StageServices = {
    config,
    state: new JobStateStore(connection, {
      prefix: config.redis.prefix,
      ttl: { queuedSeconds: config.ttl.queuedSeconds, processingSeconds: config.ttl.processingSeconds, resultSeconds: config.ttl.resultSeconds },
      leaseMs: config.ttl.heartbeatIntervalMs * 3,
      actor: PROCESS_IDENTITY,
    }),
    storage: await openStorage(resolve(config.dataDir)),
    producer: new QueueProducer(connection, config.redis.prefix),
  };
  const concurrency = config.stages[stage].concurrency;
  if (handler.usesParsePool) {
    services.parsePool = new ParsePool({ threads: concurrency, maxHeapMb: config.limits.parseMaxHeapMb, timeoutMs: config.limits.parseTimeoutMs });
  }

  const worker = new Worker(definition.name, (job: Job) => runJob(handler, job, services, logger), {
    connection,
    prefix: bullPrefix(config.redis.prefix),
    concurrency,
    ...definition.worker,
  });
  worker.on('error', (error) => logger.error('worker error', { stage, error: error.message }));
  // Safety net for failures that never reach the processor's catch (a stalled job failed by
  // another consumer's stall check, a lock lost mid-run): the record must not stay `processing`.
  worker.on('failed', (job, error) => {
    if (!job || !isFinalFailure(job, error)) return;
    const { code, message } = classify(error);
    services.state.fail(refOf(job), { code: code === 'internal_error' && /stalled/i.test(error.message) ? 'stalled' : code, message }).catch((e: unknown) =>
      logger.warn('could not record failure', { jobId: refOf(job).jobId, stage, error: String(e) }),
    );
  });
  logger.info('consumer started', { stage, concurrency, queue: definition.name });

  return {
    stage,
    worker,
    async close(graceMs = config.shutdownGraceMs) {
      logger.info('consumer stopping', { stage, graceMs });
      // worker.close() waits for running jobs without a bound of its own; past the grace period
      // force it: the unfinished jobs' locks lapse and another consumer takes them over.
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<'forced'>((r) => (timer = setTimeout(() => r('forced'), graceMs)));
      const outcome = await Promise.race([worker.close().then(() => 'closed' as const), forced]);
      clearTimeout(timer);
      if (outcome === 'forced') {
        logger.warn('grace period over; leaving running jobs to be taken over', { stage });
        await worker.close(true);
      }
      await services.parsePool?.close();
      await services.producer.close();
      connection.disconnect();
    },
  };
}

/**
 * Everything common to every stage, around the stage's own handler:
 * validate the payload, move the record to `processing` (or skip a job already finished: at-least
 * once delivery), keep its lease alive while working, and classify failures. Errors are always
 * rethrown to BullMQ (never swallowed), so retries and backoff work.
 */
async function runJob(handler: StageHandler<Stage>, job: Job, services: StageServices, baseLogger: Logger): Promise<void> {
  const stage = handler.stage;
  const parsed = QUEUES[stage].payload.safeParse(job.data);
  const rawJobId = typeof job.data?.jobId === 'string' ? (job.data.jobId as string) : String(job.id);
  const logger = jobLogger(baseLogger, { jobId: rawJobId, stage, attempt: job.attemptsMade + 1 });
  if (!parsed.success) {
    logger.error('invalid payload', { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) });
    await services.state.fail(refOf(job), { code: 'invalid_payload', message: 'The job payload is invalid.' }).catch(() => undefined);
    throw new UnrecoverableError('invalid_payload');
  }
  const payload = parsed.data;
  const ref: JobRef = { jobId: payload.jobId, batchId: payload.batchId };

  const started = await services.state.start(ref, handler.phase);
  if (!started.applied) {
    // Already terminal (a duplicate delivery of finished work) or expired: nothing to do.
    logger.info('job skipped', { status: started.status });
    return;
  }
  logger.info('stage started');
  const heartbeat = setInterval(() => {
    services.state.heartbeat(ref).catch((error: unknown) => logger.warn('heartbeat failed', { error: String(error) }));
  }, services.config.ttl.heartbeatIntervalMs);
  try {
    await handler.handle(payload, { ...services, logger, job });
    logger.info('stage finished');
  } catch (error) {
    const failure = classify(error);
    const final = failure.permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (final) {
      await services.state.fail(ref, { code: failure.code, message: failure.message });
      logger.error('job failed', { code: failure.code, error: failure.message, permanent: failure.permanent });
    } else {
      logger.warn('attempt failed; will retry', { code: failure.code, error: failure.message });
    }
    if (failure.permanent && !(error instanceof UnrecoverableError)) throw new UnrecoverableError(`${failure.code}: ${failure.message}`);
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

function refOf(job: Job): JobRef {
  const data = (job.data ?? {}) as { jobId?: unknown; batchId?: unknown };
  return {
    jobId: typeof data.jobId === 'string' ? data.jobId : String(job.id),
    batchId: typeof data.batchId === 'string' ? data.batchId : undefined,
  };
}

function isFinalFailure(job: Job, error: Error): boolean {
  return error instanceof UnrecoverableError || error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1) || /stalled more than/i.test(error.message);
}
