import { resolve } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import { JobStateStore, type JobRef } from '@readpack/job-state';
import { jobLogger, PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import { openStorage } from '@readpack/package-store';
import { bullPrefix, jobOptionOverrides, leaseSettings, QueueProducer, QUEUES } from '@readpack/queues';
import { createOcrReader } from '@readpack/ocr';
import { openSecretBox } from '@readpack/secrets';
import { createConsumerConnection } from '@readpack/redis';
import { DeadLetterWriter, startDeadLetterWorker } from './dead-letters.js';
import { classify, type Classified } from './failures.js';
import { startMaintenance } from './maintenance/maintenance.js';
import { ParsePool } from './parse-pool.js';
import { RenderPool } from './render-pool.js';
import type { StageHandler, StageServices } from './stage.js';
import { handlerFor } from './stages/index.js';
import { mineruClientFrom } from './stages/mineru.js';

export interface RunningConsumer {
  stage: Stage;
  worker: Worker;
  /** Stops taking jobs, lets running ones finish within the grace period, releases everything. */
  close(graceMs?: number): Promise<void>;
}

/** What the runner needs around a stage handler, besides the handler's own services. */
interface RunnerContext {
  handler: StageHandler<Stage>;
  services: StageServices;
  deadLetters: DeadLetterWriter;
  logger: Logger;
  worker?: Worker;
  /** Half the lock duration: the record's lease is renewed as often as BullMQ renews the lock. */
  heartbeatMs: number;
}

/**
 * Starts one stage's BullMQ consumer in this process, plus the stage's dead-letter worker and the
 * shared maintenance worker (see maintenance/maintenance.ts).
 */
export async function startConsumer(stage: Stage, config: Config, logger: Logger): Promise<RunningConsumer> {
  const handler = handlerFor(stage) as StageHandler<Stage>;
  const lease = leaseSettings(stage, config.leases);
  const connection = createConsumerConnection({ url: config.redis.url }, `readpack-${stage}:${PROCESS_IDENTITY}`);
  connection.on('error', (error: Error) => logger.warn('redis connection error', { stage, error: error.message }));
  const state = new JobStateStore(connection, {
    prefix: config.redis.prefix,
    ttl: { queuedSeconds: config.ttl.queuedSeconds, processingSeconds: config.ttl.processingSeconds, resultSeconds: config.ttl.resultSeconds },
    // The record's lease is the BullMQ lock: both lapse together when this process dies.
    leaseMs: lease.lockDuration,
    actor: PROCESS_IDENTITY,
  });
  const storage = await openStorage(resolve(config.dataDir));
  const producer = new QueueProducer(connection, config.redis.prefix, {
    overrides: jobOptionOverrides(config),
    onError: (error) => logger.warn('queue connection error', { stage, error: error.message }),
  });
  const services: StageServices = { config, state, storage, producer };
  const concurrency = config.stages[stage].concurrency;
  if (handler.needs.includes('parsePool')) {
    services.parsePool = new ParsePool({ threads: concurrency, maxHeapMb: config.limits.parseMaxHeapMb, timeoutMs: config.limits.parseTimeoutMs });
  }
  if (handler.needs.includes('renderPool')) {
    services.renderPool = new RenderPool({ threads: concurrency, maxHeapMb: config.limits.parseMaxHeapMb, timeoutMs: config.limits.parseTimeoutMs });
  }
  if (handler.needs.includes('ocr')) {
    // Fails at boot when the default language's data is missing: better than failing every page.
    const languages = [config.ocr.defaultLang === 'auto' ? 'eng' : config.ocr.defaultLang];
    services.ocr = createOcrReader(config.ocr.engine, { tessdataDir: config.ocr.tessdataDir, concurrency, languages });
  }
  if (handler.needs.includes('mineru')) services.mineru = mineruClientFrom(config);
  if (handler.needs.includes('secrets')) services.secrets = await openSecretBox(resolve(config.dataDir));
  if (handler.configureQueue) {
    const queue = new Queue(QUEUES[stage].name, { connection, prefix: bullPrefix(config.redis.prefix) });
    await handler.configureQueue(queue, config);
    await queue.close();
  }
  const ctx: RunnerContext = {
    handler,
    services,
    deadLetters: new DeadLetterWriter(stage, connection, config.redis.prefix, (error) => logger.warn('dead-letter queue connection error', { stage, error: error.message })),
    logger,
    heartbeatMs: Math.max(250, Math.floor(lease.lockDuration / 2)),
  };

  const worker = new Worker(QUEUES[stage].name, (job: Job) => runJob(ctx, job), {
    connection,
    prefix: bullPrefix(config.redis.prefix),
    concurrency,
    ...lease,
    ...handler.workerOptions?.(config),
  });
  ctx.worker = worker;
  worker.on('error', (error) => logger.error('worker error', { stage, error: error.message }));
  worker.on('stalled', (jobId) => logger.warn('job stalled; taking it over', { stage, bullJobId: jobId }));
  // Failures that never reach the processor's catch — a job whose stall count ran out, or that
  // started too often — are failed by BullMQ itself before the processor runs; record them here.
  worker.on('failed', (job, error) => {
    if (!job || !isFinalFailure(job, error)) return;
    recordFinalFailure(ctx, job, stallAware(classify(error), error)).catch((e: unknown) =>
      logger.warn('could not record a final failure', { stage, jobId: refOf(job).jobId, error: String(e) }),
    );
  });
  const deadLetterWorker = startDeadLetterWorker(stage, { connection, prefix: config.redis.prefix, state, producer, logger });
  const maintenance = await startMaintenance({ config, connection, state, storage, logger });
  logger.info('consumer started', { stage, concurrency, ...lease });

  return {
    stage,
    worker,
    async close(graceMs = config.shutdownGraceMs) {
      logger.info('consumer stopping', { stage, graceMs });
      // worker.close() waits for running jobs with no bound of its own; past the grace period we
      // force it: those jobs' locks lapse and another consumer takes them over (nothing is lost).
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<'forced'>((r) => (timer = setTimeout(() => r('forced'), graceMs)));
      const outcome = await Promise.race([worker.close().then(() => 'closed' as const), forced]);
      clearTimeout(timer);
      if (outcome === 'forced') {
        logger.warn('grace period over; leaving running jobs to be taken over', { stage });
        await worker.close(true);
      }
      await Promise.all([deadLetterWorker.close(), maintenance.close()]);
      await Promise.all([services.parsePool?.close(), services.renderPool?.close(), services.ocr?.close()]);
      await Promise.all([producer.close(), ctx.deadLetters.close()]);
      connection.disconnect();
    },
  };
}

/**
 * Everything common to every stage, around the stage's own handler: validate the payload, move
 * the record to `processing` (skipping a job already finished — delivery is at-least-once — or one
 * from a series an operator has since replayed), keep the record's lease alive while working, and
 * classify failures. Errors are always rethrown to BullMQ, never swallowed, so retries work.
 */
async function runJob(ctx: RunnerContext, job: Job): Promise<unknown> {
  const { handler, services } = ctx;
  const stage = handler.stage;
  const parsed = QUEUES[stage].payload.safeParse(job.data);
  const logger = jobLogger(ctx.logger, { jobId: refOf(job).jobId, stage, attempt: job.attemptsMade + 1, bullJobId: job.id });
  if (!parsed.success) {
    logger.error('invalid payload', { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) });
    await recordFinalFailure(ctx, job, { permanent: true, code: 'invalid_payload', message: 'The job payload is invalid.' });
    throw new UnrecoverableError('invalid_payload');
  }
  const payload = parsed.data;
  const ref: JobRef = { jobId: payload.jobId, batchId: payload.batchId };

  const started = await services.state.start(ref, handler.phase, payload.series ?? 1);
  if (!started.applied && started.status === 'failed' && handler.failureOwner === 'job') {
    // Failed already (an earlier delivery recorded it): keep the job failed in BullMQ too, with
    // its dead letter, rather than completing it as if nothing had happened.
    const error = (await services.state.getJob(ref.jobId))?.error ?? { code: 'internal_error', message: 'failed earlier' };
    await ctx.deadLetters.write(job, { permanent: true, ...error });
    throw new UnrecoverableError(`${error.code}: ${error.message}`);
  }
  if (!started.applied) {
    logger.info('job skipped', { status: started.status });
    return;
  }
  logger.info('stage started');
  if (services.config.faults.exitOnFilename && payload.source.filename.includes(services.config.faults.exitOnFilename)) {
    logger.warn('fault injection: exiting mid-job');
    process.exit(70);
  }
  const heartbeat = setInterval(() => {
    services.state.heartbeat(ref).catch((error: unknown) => logger.warn('heartbeat failed', { error: String(error) }));
  }, ctx.heartbeatMs);
  try {
    const result = await handler.handle(payload, { ...services, logger, job, worker: ctx.worker! });
    logger.info('stage finished');
    return result;
  } catch (error) {
    // A rate-limited job goes back to wait without spending an attempt: not a failure.
    if (error instanceof Error && error.name === 'RateLimitError') throw error;
    const failure = classify(error);
    const final = failure.permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (final) {
      await recordFinalFailure(ctx, job, failure);
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

/**
 * The record becomes `failed` and the job goes to its stage's dead-letter queue (both idempotent)
 * — unless the stage is a child whose parent decides (see StageHandler.failureOwner).
 */
async function recordFinalFailure(ctx: RunnerContext, job: Job, failure: Classified): Promise<void> {
  if (ctx.handler.failureOwner === 'parent') {
    const payload = QUEUES[ctx.handler.stage].payload.safeParse(job.data);
    if (payload.success && ctx.handler.onGaveUp) {
      const logger = jobLogger(ctx.logger, { jobId: payload.data.jobId, stage: ctx.handler.stage });
      await ctx.handler.onGaveUp(payload.data, { ...ctx.services, logger, job, worker: ctx.worker! }, failure);
    }
    return;
  }
  // Dead letter first: if the process dies between the two writes, the record is still
  // `processing`, the job is redelivered and both writes happen again (each is idempotent). The
  // other order could leave a failed record whose dead letter is never written.
  await ctx.deadLetters.write(job, failure);
  await ctx.services.state.fail(refOf(job), { code: failure.code, message: failure.message });
}

function refOf(job: Job): JobRef {
  const data = (job.data ?? {}) as { jobId?: unknown; batchId?: unknown };
  return {
    jobId: typeof data.jobId === 'string' ? data.jobId : String(job.id),
    batchId: typeof data.batchId === 'string' ? data.batchId : undefined,
  };
}

function isFinalFailure(job: Job, error: Error): boolean {
  return error instanceof UnrecoverableError || error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
}

/** BullMQ's own poison bounds arrive as generic UnrecoverableErrors; give them a stable code. */
function stallAware(failure: Classified, error: Error): Classified {
  if (/stalled more than allowable limit|started more than allowable limit/i.test(error.message)) {
    return { permanent: true, code: 'stalled', message: 'The job kept stopping its consumer (killed or crashed) and was given up (poison document bound).' };
  }
  return failure;
}
