import type { Job, Worker } from 'bullmq';
import type { RedisClient } from '@readpack/redis';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Stage } from '@readpack/config';
import type { JobErrorCode, JobStateStore } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import { isAssembledInPlace } from './assembled-in-place.js';
import { CONSUMER_METRICS_PUSH_MS, CONSUMER_METRICS_TTL_MS, consumerMetricsIndexKey, consumerMetricsKey } from '@readpack/queues';

/*
 * A consumer's metrics (prom-client), pushed to Redis rather than served on a port of its own:
 * consumers run as many processes on several hosts and are scaled by compose, so a port per
 * process would need service discovery in Prometheus; a snapshot in Redis lets one scrape of the
 * API see the whole fleet (packages/queues/src/metrics-keys.ts). The snapshot is absolute (the
 * registry's JSON), so a lost or repeated write changes nothing; counters restart with the
 * process, which Prometheus's rate() treats as an ordinary reset.
 */

const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface ConsumerMetrics {
  /** Counts a job (or page) failed for good, by its code: called from the runner's one final-failure path. */
  failed(code: JobErrorCode): void;
  /** Writes a last snapshot and stops pushing. */
  close(): Promise<void>;
}

interface Options {
  stage: Stage;
  worker: Worker;
  concurrency: number;
  connection: RedisClient;
  prefix: string;
  identity: string;
  logger: Logger;
  /** Read at the end of assemble, for the document's page count. */
  state: JobStateStore;
}

export function startConsumerMetrics({ stage, worker, concurrency, connection, prefix, identity, logger, state }: Options): ConsumerMetrics {
  const registry = new Registry();
  const labels = { stage };
  const jobs = new Counter({ name: 'readpack_stage_jobs_total', help: 'Stage jobs ended, by outcome (completed, failed attempt).', labelNames: ['stage', 'outcome'], registers: [registry] });
  const duration = new Histogram({
    name: 'readpack_stage_duration_seconds',
    help: 'Time a stage job ran in its consumer, from start to end.',
    labelNames: ['stage', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const pages = new Counter({
    name: 'readpack_stage_pages_total',
    help: 'Pages finished: render and OCR count their page jobs, assemble the pages of the documents completed (rate() gives pages per second).',
    labelNames: ['stage'],
    registers: [registry],
  });
  const failures = new Counter({ name: 'readpack_job_failures_total', help: 'Jobs failed for good, by stage and error code.', labelNames: ['stage', 'code'], registers: [registry] });
  const takeovers = new Counter({ name: 'readpack_takeovers_total', help: 'Jobs whose lock lapsed (dead or stuck consumer) and were taken over.', labelNames: ['stage'], registers: [registry] });
  const active = new Gauge({ name: 'readpack_stage_active_jobs', help: 'Jobs running now (OCR and MinerU: engine slots in use).', labelNames: ['stage'], registers: [registry] });
  const slots = new Gauge({ name: 'readpack_stage_concurrency', help: 'Jobs a stage may run at once, summed over its consumers.', labelNames: ['stage'], registers: [registry] });
  slots.set(labels, concurrency);
  active.set(labels, 0);
  // Series exist from the start (at 0): rate() and increase() need a first sample to count from.
  takeovers.inc(labels, 0);
  pages.inc(labels, 0);
  for (const outcome of ['completed', 'failed']) {
    jobs.inc({ stage, outcome }, 0);
    duration.zero({ stage, outcome });
  }

  // Jobs this process is running and since when (BullMQ keeps no public count); the `failed`
  // event also comes for jobs BullMQ gave up without running them here, which must not count.
  const startedAt = new Map<string, number>();
  const ended = (job: Job, outcome: 'completed' | 'failed') => {
    const started = job.id === undefined ? undefined : startedAt.get(job.id);
    if (started === undefined) return;
    startedAt.delete(job.id!);
    active.set(labels, startedAt.size);
    jobs.inc({ stage, outcome });
    duration.observe({ stage, outcome }, (performance.now() - started) / 1000);
  };
  worker.on('active', (job) => {
    if (job.id !== undefined) startedAt.set(job.id, performance.now());
    active.set(labels, startedAt.size);
  });
  worker.on('completed', (job, result) => {
    ended(job, 'completed');
    if (isPageJob(job)) pages.inc(labels);
    // A document its extract job assembled in place counts where every assembled document does.
    else if (stage === 'extract' && isAssembledInPlace(result) && PAGED.test(sourceTypeOf(job) ?? '') && result.pages > 0) pages.inc({ stage: 'assemble' }, result.pages);
    else if (stage === 'assemble') {
      documentPages(state, job).then(
        (n) => n > 0 && pages.inc(labels, n),
        (error: unknown) => logger.warn('could not count the pages of an assembled document', { stage, error: String(error) }),
      );
    }
  });
  worker.on('failed', (job) => {
    if (job) ended(job, 'failed');
  });
  worker.on('stalled', () => takeovers.inc(labels));

  const key = consumerMetricsKey(prefix, stage, identity);
  const index = consumerMetricsIndexKey(prefix);
  const push = async () => {
    const snapshot = JSON.stringify(await registry.getMetricsAsJSON());
    const now = Date.now();
    await connection.multi().set(key, snapshot, 'PX', CONSUMER_METRICS_TTL_MS).zadd(index, now, key).zremrangebyscore(index, 0, now - CONSUMER_METRICS_TTL_MS).exec();
  };
  // A failed push is retried by the next one; metrics must never stop a consumer.
  const beat = () => push().catch((error: unknown) => logger.warn('could not push metrics', { stage, error: String(error) }));
  const timer = setInterval(() => void beat(), CONSUMER_METRICS_PUSH_MS);
  timer.unref();
  void beat();

  return {
    failed(code: JobErrorCode) {
      failures.inc({ stage, code });
    },
    async close() {
      clearInterval(timer);
      startedAt.clear();
      active.set(labels, 0);
      await beat();
    },
  };
}

/** Render and OCR jobs are one page each. */
function isPageJob(job: Job): boolean {
  return typeof (job.data as { page?: unknown } | undefined)?.page === 'number';
}

/**
 * An assembled document's pages: its record's progress counts pages for paged documents (PDFs,
 * images, slides) and steps for the others (extract.ts), so only paged ones are counted.
 */
async function documentPages(state: JobStateStore, job: Job): Promise<number> {
  const jobId = (job.data as { jobId?: unknown } | undefined)?.jobId;
  if (typeof jobId !== 'string') return 0;
  // The payload names the upload's type, as the record does: a document that is not paged costs no read.
  const mediaType = sourceTypeOf(job);
  if (mediaType !== undefined && !PAGED.test(mediaType)) return 0;
  const record = await state.getJob(jobId);
  if (!record || record.status !== 'done' || !PAGED.test(record.source.mediaType)) return 0;
  return record.progress.total;
}

/** The upload's media type, as the job's payload names it. */
function sourceTypeOf(job: Job): string | undefined {
  const mediaType = (job.data as { source?: { mediaType?: unknown } } | undefined)?.source?.mediaType;
  return typeof mediaType === 'string' ? mediaType : undefined;
}

const PAGED = /^(application\/pdf|image\/|application\/vnd\.openxmlformats-officedocument\.presentationml)/;
