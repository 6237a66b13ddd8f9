import type { Stage } from '@readpack/config';
import type { z } from 'zod';
import { assembleQueue } from './stages/assemble.config.js';
import { convertQueue } from './stages/convert.config.js';
import { extractQueue } from './stages/extract.config.js';
import { mineruQueue } from './stages/mineru.config.js';
import { ocrQueue } from './stages/ocr.config.js';
import { renderQueue } from './stages/render.config.js';

/**
 * Every queue of the pipeline, one per stage. The API and the workers import this same object:
 * the API to add jobs, the workers to consume them. `satisfies Record<Stage, …>` makes a stage
 * without a queue (or a queue without a stage) a compile error.
 */
export const QUEUES = {
  extract: extractQueue,
  convert: convertQueue,
  render: renderQueue,
  ocr: ocrQueue,
  mineru: mineruQueue,
  assemble: assembleQueue,
} as const satisfies Record<Stage, { name: Stage }>;

export type QueueName = keyof typeof QUEUES;
export type PayloadOf<N extends QueueName> = z.infer<(typeof QUEUES)[N]['payload']>;

/**
 * Version of what the pipeline produces from a document. Part of the dedup identity: bump it when
 * a parser or the package format changes, so a running job of the old pipeline is never joined.
 */
export const PIPELINE_VERSION = '1';

/** BullMQ key prefix under the deployment prefix, e.g. `readpack:bull:extract:…`. */
export function bullPrefix(prefix: string): string {
  return `${prefix}:bull`;
}

/**
 * The part of the extract job that reads the convert stage's PDF (`<jobId>-extract-pdf`): the
 * upload's own extract job (`<jobId>`) may be the one that sent the document to conversion.
 */
export const RENDITION_PART = 'pdf';

/**
 * Deterministic BullMQ ids of a job's stages: a re-delivered step re-adds nothing. A replayed job
 * (series > 1) gets new ids, because the failed jobs of the earlier series are still retained.
 */
export function stageJobId(jobId: string, stage: QueueName, series = 1, part?: string): string {
  const base = stage === 'extract' && !part ? jobId : `${jobId}-${stage}${part ? `-${part}` : ''}`;
  return series > 1 ? `${base}-s${series}` : base;
}

/** Where a stage's jobs go when they fail for good (BullMQ has no native dead-letter queue). */
export function deadLetterQueueName(stage: QueueName): string {
  return `${stage}-dlq`;
}

export interface LeaseSettings {
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
  maxStartedAttempts: number;
}

/** What the consumer's BullMQ Worker is given: the lease settings plus how often the lock is renewed. */
export interface BullLeaseOptions extends LeaseSettings {
  lockRenewTime: number;
}

/**
 * What the consumer's BullMQ Worker is given. The poison bounds (maxStalledCount,
 * maxStartedAttempts) are enforced by the runner itself, when it picks the job up, so that a
 * poison job's failure is recorded on the one path every final failure takes (the processor);
 * BullMQ's own bounds, which fail a job without running the processor, sit one above ours as a
 * backstop that never fires first.
 *
 * lockRenewTime: BullMQ's default (lockDuration / 2) renews a lock up to lockDuration / 2 after
 * the last renewal (its timer runs every lockRenewTime / 2 and skips a lock renewed less than
 * that long ago), so one renewal that arrives ~5 s late (a starved event loop, a slow Redis
 * reply) lets a 10 s lock lapse and a live consumer's job is taken over. A quarter renews every
 * 1.25–2.5 s: a renewal may be 7.5 s late. It costs one script call per worker (all its active
 * jobs at once) per renewal, and changes nothing when the process dies (takeover still waits for
 * the lock to lapse).
 */
export function bullWorkerLeaseOptions(settings: LeaseSettings): BullLeaseOptions {
  return {
    lockDuration: settings.lockDuration,
    lockRenewTime: Math.max(100, Math.floor(settings.lockDuration / 4)),
    stalledInterval: settings.stalledInterval,
    maxStalledCount: settings.maxStalledCount + 1,
    maxStartedAttempts: settings.maxStartedAttempts > 0 ? settings.maxStartedAttempts + 1 : 0,
  };
}

/** A queue's lease settings, with the deployment's global overrides (LOCK_DURATION_MS, STALLED_INTERVAL_MS) applied. */
export function leaseSettings(stage: QueueName, overrides: { lockDurationMs: number | undefined; stalledIntervalMs: number | undefined }): LeaseSettings {
  const own = QUEUES[stage].worker;
  return {
    lockDuration: overrides.lockDurationMs ?? own.lockDuration,
    stalledInterval: overrides.stalledIntervalMs ?? own.stalledInterval,
    maxStalledCount: own.maxStalledCount,
    maxStartedAttempts: own.maxStartedAttempts,
  };
}
