import { resolve } from 'node:path';
import { Worker as Thread } from 'node:worker_threads';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import { deadLettered, JOB_ERRORS, JobStateStore, LeaseLostError, type JobErrorCode, type LeasedJobState, type JobRef, type Lease } from '@readpack/job-state';
import { jobLogger, PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import { openStorage, type Storage } from '@readpack/package-store';
import { bullPrefix, bullWorkerLeaseOptions, CONVERTER_REFRESH_MS, jobOptionOverrides, leaseSettings, publishConverter, QueueProducer, QUEUES, readConverter, traceCarrier, WebhookEnqueuer, type LeaseSettings, type PayloadOf } from '@readpack/queues';
import { ATTR, contextFromCarrier, inSpan, recordSpan, SPAN, stageSpan, tracingEnabled, type SpanAttributes, type TraceCarrier } from '@readpack/tracing';
import { createConsumerConnection, type RedisClient } from '@readpack/redis';
import type { LibreOffice } from './libreoffice.js';
import type { ChildFailed } from './child-results.js';
import { DeadLetterWriter, startDeadLetterWorker } from './dead-letters.js';
import { classify, type Classified } from './failures.js';
import { startMaintenance } from './maintenance/maintenance.js';
import { closeServices, createServices } from './services.js';
import type { BaseServices, NeedTypes, StageContext, StageNeed } from './stage.js';
import { handlerFor, type AnyStageHandler } from './stages/index.js';
import { startConsumerMetrics } from './metrics.js';

export interface RunningConsumer {
  stage: Stage;
  worker: Worker;
  /** This stage's view of the job-state store (its lease length). */
  state: JobStateStore;
  /** Stops taking jobs, lets running ones finish within the grace period, releases everything. */
  close(graceMs?: number): Promise<void>;
}

/** What the runner needs around a stage handler, besides the handler's own services. */
interface RunnerContext {
  handler: AnyStageHandler<Stage>;
  state: JobStateStore;
  base: Omit<BaseServices, 'state'>;
  needed: Partial<NeedTypes>;
  deadLetters: DeadLetterWriter;
  logger: Logger;
  worker?: Worker;
  /** Half the lock duration: the record's lease is renewed as often as BullMQ renews the lock. */
  heartbeatMs: number;
  /** The stage's poison bounds, enforced here (see bullWorkerLeaseOptions). */
  bounds: LeaseSettings;
  /** Counts a final failure by its code (metrics.ts); set once the worker runs. */
  countFailure?: (code: JobErrorCode) => void;
}

/**
 * What the consumers of one process share: one Redis connection (BullMQ duplicates it for each
 * worker's blocking reads), the blob store, the producer and the webhook enqueuer.
 */
export interface ConsumerResources {
  connection: RedisClient;
  storage: Storage;
  producer: QueueProducer;
  webhooks: WebhookEnqueuer;
  close(): Promise<void>;
}

/** `name` tells the process's connections apart in CLIENT LIST and its warnings (the stage, or the stages it serves). */
export async function openConsumerResources(name: string, config: Config, logger: Logger): Promise<ConsumerResources> {
  const connection = createConsumerConnection({ url: config.redis.url }, `readpack-${name}:${PROCESS_IDENTITY}`);
  connection.on('error', (error: Error) => logger.warn('redis connection error', { stage: name, error: error.message }));
  const webhooks = new WebhookEnqueuer(connection, config.redis.prefix, config.webhooks, (error) => logger.warn('webhook queue connection error', { stage: name, error: error.message }));
  const storage = await openStorage(resolve(config.dataDir), config.storage.s3);
  const producer = new QueueProducer(connection, config.redis.prefix, {
    overrides: jobOptionOverrides(config),
    onError: (error) => logger.warn('queue connection error', { stage: name, error: error.message }),
  });
  return {
    connection,
    storage,
    producer,
    webhooks,
    async close() {
      await Promise.all([producer.close(), webhooks.close()]);
      connection.disconnect();
    },
  };
}

/** The job-state store as one stage's consumers write it: the record's lease is that stage's BullMQ lock. */
export function stageStateStore(stage: Stage, resources: ConsumerResources, config: Config): JobStateStore {
  return new JobStateStore(resources.connection, {
    prefix: config.redis.prefix,
    ttl: { queuedSeconds: config.ttl.queuedSeconds, processingSeconds: config.ttl.processingSeconds, resultSeconds: config.ttl.resultSeconds },
    // The record's lease is the BullMQ lock: both lapse together when this process dies.
    leaseMs: leaseSettings(stage, config.leases).lockDuration,
    actor: PROCESS_IDENTITY,
    // Every end this consumer (or its sweeper) writes enqueues the job's webhook, if it has one.
    onTerminal: (notice) => resources.webhooks.notify(notice),
  });
}

/**
 * Starts one stage's BullMQ consumer in this process, plus the stage's dead-letter worker. Alone
 * (no `shared`), it opens its own resources and runs the process's maintenance worker (see
 * maintenance/maintenance.ts); given `shared`, the process that passed them owns both
 * (consumer-group.ts). `group`: every stage this process consumes.
 */
export async function startConsumer(stage: Stage, config: Config, logger: Logger, shared?: ConsumerResources, group: readonly Stage[] = [stage]): Promise<RunningConsumer> {
  const handler = await handlerFor(stage);
  const lease = leaseSettings(stage, config.leases);
  const resources = shared ?? (await openConsumerResources(stage, config, logger));
  const { connection, storage, producer } = resources;
  const state = stageStateStore(stage, resources, config);
  const needed: Partial<NeedTypes> = await createServices(handler.needs, stage, config, (message, meta) => logger.warn(message, { stage, ...meta }));
  const converterBeat = needed.libreoffice ? await announceConverter(needed.libreoffice, connection, config, logger) : undefined;
  if (handler.configureQueue) {
    const queue = new Queue(QUEUES[stage].name, { connection, prefix: bullPrefix(config.redis.prefix) });
    await handler.configureQueue(queue, config);
    await queue.close();
  }
  const ctx: RunnerContext = {
    handler,
    state,
    base: { config, storage, producer, converterAvailable: async () => (await readConverter(connection, config.redis.prefix)) !== undefined, assemblesHere: group.includes('assemble') },
    needed,
    deadLetters: new DeadLetterWriter(stage, connection, config.redis.prefix, (error) => logger.warn('dead-letter queue connection error', { stage, error: error.message })),
    logger,
    heartbeatMs: Math.max(250, Math.floor(lease.lockDuration / 2)),
    bounds: lease,
  };

  const worker = new Worker(QUEUES[stage].name, (job: Job, token?: string) => runJob(ctx, job, token), {
    connection,
    prefix: bullPrefix(config.redis.prefix),
    concurrency: config.stages[stage].concurrency,
    ...bullWorkerLeaseOptions(lease),
    ...handler.workerOptions?.(config),
  });
  ctx.worker = worker;
  const metrics = startConsumerMetrics({ stage, worker, concurrency: config.stages[stage].concurrency, connection, prefix: config.redis.prefix, identity: PROCESS_IDENTITY, logger, state });
  ctx.countFailure = (code) => metrics.failed(code);
  worker.on('error', (error) => logger.error('worker error', { stage, error: error.message }));
  worker.on('stalled', (jobId) => logger.warn('job stalled; taking it over', { stage, bullJobId: jobId }));
  // Every final failure is recorded by the processor (runJob → finalFailure). BullMQ fails a job
  // without running the processor only past its own poison bounds, which sit above ours; should
  // that ever happen the record's lease lapses and the sweeper ends it (`orphaned`).
  worker.on('failed', (job, error) => {
    if (job?.deferredFailure) logger.error('BullMQ failed a job past its own poison bound', { stage, bullJobId: job.id, error: error.message });
  });
  const deadLetterWorker = startDeadLetterWorker(stage, { connection, prefix: config.redis.prefix, state, producer, logger });
  const maintenance = shared ? undefined : await startMaintenance({ config, connection, state, storage, logger });
  logger.info('consumer started', { stage, concurrency: config.stages[stage].concurrency, ...lease });

  return {
    stage,
    worker,
    state,
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
      // Availability lapses with its TTL rather than being deleted: other convert consumers may still run.
      clearInterval(converterBeat);
      await metrics.close();
      await Promise.all([deadLetterWorker.close(), maintenance?.close()]);
      await closeServices(needed);
      await ctx.deadLetters.close();
      if (!shared) await resources.close();
    },
  };
}

/**
 * Publishes, while this consumer runs, that LibreOffice conversion is available (read by every API
 * process at upload time, so they all answer alike).
 */
async function announceConverter(libreoffice: LibreOffice, connection: RedisClient, config: Config, logger: Logger): Promise<NodeJS.Timeout> {
  const publish = () => publishConverter(connection, config.redis.prefix, { parser: 'libreoffice', version: libreoffice.version, by: PROCESS_IDENTITY });
  // A Redis blip at boot must not stop the consumer: the next beat publishes again.
  const beat = () => publish().catch((error: unknown) => logger.warn('could not publish converter availability', { stage: 'convert', error: String(error) }));
  await beat();
  logger.info('LibreOffice conversion available', { stage: 'convert', binary: libreoffice.binary, version: libreoffice.version, profile: libreoffice.profileDir });
  return setInterval(() => void beat(), CONVERTER_REFRESH_MS);
}

/**
 * A job's spans, in the trace of the span that enqueued it (its payload's `trace`): `queue.wait`
 * (`queue.fan_in` for a flow parent), from the enqueue to this start, recorded with its real
 * times; then the stage's handler span around everything this consumer does for the job. A
 * redelivered job (takeover, retry) adds both again under the same parent, so its trace shows
 * every start.
 */
function runJob(ctx: RunnerContext, job: Job, token: string | undefined): Promise<unknown> {
  if (!tracingEnabled()) return processJob(ctx, job, token);
  const parent = contextFromCarrier(traceOf(job));
  const attributes = jobAttributes(ctx.handler.stage, job);
  recordSpan(ctx.handler.waitsForChildren ? SPAN.fanIn : SPAN.queueWait, { parent, attributes, startMs: job.timestamp, endMs: job.processedOn ?? Date.now() });
  return inSpan(stageSpan(ctx.handler.stage), { parent, kind: 'consumer', attributes }, () => processJob(ctx, job, token));
}

function traceOf(job: Job): TraceCarrier | undefined {
  const parsed = traceCarrier.safeParse((job.data as { trace?: unknown } | undefined)?.trace);
  return parsed.success ? parsed.data : undefined;
}

/** Identifiers only: the payload is read as untrusted here (validated later, in processJob). */
function jobAttributes(stage: Stage, job: Job): SpanAttributes {
  const data = (job.data ?? {}) as { tenant?: unknown; page?: unknown; series?: unknown };
  return {
    [ATTR.stage]: stage,
    [ATTR.jobId]: refOf(job).jobId,
    [ATTR.messageId]: String(job.id),
    [ATTR.attempt]: job.attemptsMade + 1,
    [ATTR.start]: job.attemptsStarted,
    ...(typeof data.tenant === 'string' ? { [ATTR.tenant]: data.tenant } : {}),
    ...(typeof data.page === 'number' ? { [ATTR.page]: data.page } : {}),
    ...(typeof data.series === 'number' ? { [ATTR.series]: data.series } : {}),
  };
}

/**
 * Everything common to every stage, around the stage's own handler: validate the payload, take
 * the record's lease for this start of the job (skipping a job already finished — delivery is
 * at-least-once — or one from a series an operator has since replayed), keep the lease alive while
 * working, release it after, and take every final failure down the one path (finalFailure).
 * Errors are always rethrown to BullMQ, never swallowed, so retries work.
 */
async function processJob(ctx: RunnerContext, job: Job, token: string | undefined): Promise<unknown> {
  const { handler, state } = ctx;
  const stage = handler.stage;
  const parsed = QUEUES[stage].payload.safeParse(job.data);
  const logger = jobLogger(ctx.logger, { jobId: refOf(job).jobId, stage, attempt: job.attemptsMade + 1, bullJobId: job.id });
  if (!parsed.success) {
    logger.error('invalid payload', { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) });
    // No lease can be taken for a payload we cannot read: the record (if any) is failed by authority.
    return finalFailure(ctx, job, undefined, { permanent: true, code: 'invalid_payload', message: JOB_ERRORS.invalid_payload.message }, logger);
  }
  if (!token) throw new Error('BullMQ gave the processor no lock token');
  const payload = parsed.data;
  const ref: JobRef = { jobId: payload.jobId, batchId: payload.batchId };
  const lease: Lease = { series: payload.series ?? 1, holder: `${stage}:${String(job.id)}`, epoch: job.attemptsStarted, token };

  const started = await inSpan(SPAN.stateStart, {}, () => state.start(ref, handler.phase, lease));
  if (!started.applied && started.status === 'failed' && handler.failureOwner === 'job') {
    // Failed already: an earlier delivery recorded it (and dead-lettered it first, when its code
    // calls for that). Keep the job failed in BullMQ too rather than completing it.
    const error = (await state.getJob(ref.jobId))?.error;
    logger.info('job already failed', { code: error?.code });
    await state.notifyTerminal(ref.jobId);
    throw new UnrecoverableError(error?.message ?? 'failed earlier');
  }
  if (!started.applied && started.status === 'done') {
    // Ended by an earlier delivery of a step, whose process may have died before it enqueued the
    // webhook: enqueue it again (one delivery id per end, so a repeat adds nothing).
    await state.notifyTerminal(ref.jobId);
  }
  if (!started.applied) {
    logger.info('job skipped', { status: started.status });
    return undefined;
  }
  if (job.stalledCounter > ctx.bounds.maxStalledCount || (ctx.bounds.maxStartedAttempts > 0 && job.attemptsStarted > ctx.bounds.maxStartedAttempts)) {
    // Checked before any work: this start only records that the job kept killing its consumers.
    logger.error('poison bound reached', { stalls: job.stalledCounter, starts: job.attemptsStarted });
    return finalFailure(ctx, job, lease, { permanent: true, code: 'stalled', message: JOB_ERRORS.stalled.message }, logger);
  }
  logger.info('stage started', { epoch: lease.epoch });
  const { config } = ctx.base;
  if (config.faults.exitOnFilename && payload.source.filename.includes(config.faults.exitOnFilename)) {
    logger.warn('fault injection: exiting mid-job');
    process.exit(70);
  }
  let leaseLost = false;
  // Set before the lease is released (or the job failed): a heartbeat in flight then is refused, as it should be, and says nothing.
  let over = false;
  const heartbeat = setInterval(() => {
    state.heartbeat(ref, lease).then(
      (result) => {
        if ((result.status === 'fenced' || result.status === 'stale') && !leaseLost && !over) {
          leaseLost = true;
          logger.warn('lease lost: another consumer took the job over; this one stops at its next write', { status: result.status });
        }
      },
      (error: unknown) => logger.warn('heartbeat failed', { error: String(error) }),
    );
  }, ctx.heartbeatMs);
  try {
    const busy = config.faults.busy;
    if (busy && busy.stage === stage && payload.source.filename.includes(busy.filename)) {
      logger.warn('fault injection: long CPU work in a worker thread', { ms: busy.ms });
      await busyInThread(busy.ms);
    }
    const leased = ctx.state.leased(lease);
    const result = await ctx.handler.handle(payload, contextFor(ctx, leased, logger, job));
    logger.info('stage finished');
    over = true;
    if (!leased.ended) await releaseLease(ctx, ref, lease, logger);
    return result;
  } catch (error) {
    if (error instanceof LeaseLostError) {
      // Someone else's job now: record nothing, and let BullMQ refuse this consumer's outcome (its lock is gone).
      logger.warn('lease lost: stopped; the consumer that took the job over owns it', { reason: error.reason });
      throw error;
    }
    over = true;
    // A rate-limited job goes back to wait without spending an attempt: not a failure.
    if (error instanceof Error && error.name === 'RateLimitError') {
      await releaseLease(ctx, ref, lease, logger);
      throw error;
    }
    const failure = classify(error);
    if (failure.permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) return finalFailure(ctx, job, lease, failure, logger);
    logger.warn('attempt failed; will retry', { code: failure.code, error: failure.message });
    await releaseLease(ctx, ref, lease, logger);
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Test-only fault (FAULT_BUSY): CPU work of `ms` in a worker thread, as a long OCR page or parse
 * is. The event loop, which renews BullMQ's lock and the record's lease, stays free throughout.
 */
function busyInThread(ms: number): Promise<void> {
  return new Promise((done, failed) => {
    const thread = new Thread('const end = Date.now() + require("node:worker_threads").workerData; while (Date.now() < end);', { eval: true, workerData: ms });
    thread.once('error', failed);
    thread.once('exit', () => done());
  });
}

function contextFor(ctx: RunnerContext, state: LeasedJobState, logger: Logger, job: Job): StageContext<StageNeed> {
  return { ...ctx.base, ...(ctx.needed as NeedTypes), state, logger, job, worker: ctx.worker! };
}

async function releaseLease(ctx: RunnerContext, ref: JobRef, lease: Lease, logger: Logger): Promise<void> {
  const released = await ctx.state.release(ref, lease);
  if (released.status === 'fenced' || released.status === 'stale') logger.warn('lease lost before release', { status: released.status });
}

/**
 * The one path of a final failure (permanent, attempts exhausted, poison bound, invalid payload).
 * - A child stage (failureOwner `parent`) completes with a typed ChildFailed value its parent reads
 *   with its other children's values; its onGaveUp runs first (e.g. the page counts as finished).
 * - Otherwise the job is dead-lettered when an operator can act on its code (deadLettered:
 *   transient and internal errors after retries, poison, unknown; never a document error the user
 *   caused), then its record becomes `failed` with the code (counted by code), under this
 *   consumer's lease; the BullMQ job fails without further attempts.
 * Dead letter before record: if the process dies between the two writes, the record is still
 * `processing`, the job is redelivered and both writes happen again (each is idempotent).
 */
async function finalFailure(ctx: RunnerContext, job: Job, lease: Lease | undefined, failure: Classified, logger: Logger): Promise<ChildFailed> {
  const ref = refOf(job);
  ctx.countFailure?.(failure.code);
  logger.error('job failed', { code: failure.code, error: failure.message, permanent: failure.permanent, deadLettered: deadLettered(failure.code) });
  if (ctx.handler.failureOwner === 'parent' && lease) {
    const payload = job.data as PayloadOf<Stage>;
    await ctx.handler.onGaveUp?.(payload, contextFor(ctx, ctx.state.leased(lease), logger, job), failure);
    await releaseLease(ctx, ref, lease, logger);
    const page = (payload as { page?: unknown }).page;
    return { ok: false, stage: ctx.handler.stage, code: failure.code, message: failure.message, ...(typeof page === 'number' ? { page } : {}) };
  }
  if (deadLettered(failure.code)) await ctx.deadLetters.write(job, failure);
  const recorded = await inSpan(SPAN.terminalWrite, { attributes: { [ATTR.outcome]: 'failed', [ATTR.errorCode]: failure.code } }, () =>
    ctx.state.fail(ref, { code: failure.code, message: failure.message }, lease ?? { series: seriesOf(job) }),
  );
  if (recorded.status === 'fenced' || recorded.status === 'stale') throw new LeaseLostError(recorded.status, lease ?? { series: seriesOf(job), holder: '', epoch: 0, token: '' });
  throw new UnrecoverableError(failure.message);
}

function refOf(job: Job): JobRef {
  const data = (job.data ?? {}) as { jobId?: unknown; batchId?: unknown };
  return {
    jobId: typeof data.jobId === 'string' ? data.jobId : String(job.id),
    batchId: typeof data.batchId === 'string' ? data.batchId : undefined,
  };
}

function seriesOf(job: Job): number {
  const series = (job.data as { series?: unknown } | undefined)?.series;
  return typeof series === 'number' ? series : 1;
}
