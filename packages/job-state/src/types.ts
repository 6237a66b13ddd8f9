import type { Phase } from './phases.js';

export const JOB_STATUSES = ['queued', 'processing', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export function isTerminalStatus(status: JobStatus): boolean {
  return status === 'done' || status === 'failed';
}

/** Where the reading package is: a pointer, never the parsed content. */
export interface ResultPointer {
  packageId: string;
  /** Bytes of the package manifest. */
  size: number;
  /** sha256 of the package manifest, hex. */
  sha256: string;
}

export interface JobError {
  /**
   * Stable, documented code (JobErrorCode, docs/errors.md), e.g. `corrupt_document`. Typed as a
   * string where it is read back: a record may hold a code an older version wrote.
   */
  code: string;
  message: string;
}

export interface SourceInfo {
  /** The name we store and show: sanitized (no path, no control characters, bounded). */
  filename: string;
  mediaType: string;
  size: number;
  sha256: string;
  /** The name exactly as the client sent it, when that differs from `filename`: metadata only, never a path. */
  originalFilename?: string;
}

export interface JobRecord {
  jobId: string;
  tenant: string;
  status: JobStatus;
  phase: Phase;
  progress: { done: number; total: number };
  error?: JobError;
  result?: ResultPointer;
  source: SourceInfo;
  batch?: { batchId: string; index: number };
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
  /** While processing: until when the current consumer's lease holds (ISO time). */
  leaseUntil?: string;
  /** Attempt series: 1, then +1 for every operator replay. Progress is monotonic within a series. */
  series: number;
  /** Failures of earlier series (replayed), oldest first. */
  history?: { series: number; code: string; message: string; phase: string; failedAt: string }[];
}

/**
 * The public status document (GET /api/files/job/:id). Built by the job-state scripts whenever
 * the record changes (scripts/prelude.lua, publishView) and served as stored.
 */
export interface JobView {
  jobId: string;
  status: JobStatus;
  phase: Phase;
  progress: { done: number; total: number };
  error?: JobError;
  result?: ResultPointer;
  source: Omit<SourceInfo, 'sha256'>;
  batch?: { batchId: string; index: number };
  series: number;
  history?: NonNullable<JobRecord['history']>;
  createdAt: string;
  updatedAt: string;
}

/** A record's owner and its status document as stored (JSON text of a `JobView`). */
export interface StoredJobView {
  tenant: string;
  json: string;
}

/** Identifies a job to a transition; `batchId` lets the script keep the batch key alive too. */
export interface JobRef {
  jobId: string;
  batchId?: string | undefined;
}

export interface TransitionResult {
  /**
   * False when the update was ignored (terminal record, record gone) or refused by the fence
   * (`stale`: an older attempt series; `fenced`: the caller's lease was taken over or released;
   * `leased`: an authority's `fail` found a consumer holding a live lease).
   */
  applied: boolean;
  status: JobStatus | 'missing' | 'stale' | 'fenced' | 'leased';
}

/**
 * What a consumer presents with every write to a record (scripts/prelude.lua, Leases): which
 * stage job it works for, which start of that job it is, and the lock token BullMQ gave that start.
 */
export interface Lease {
  /** Attempt series of the queue job (1 unless an operator replayed the job). */
  series: number;
  /** The stage job holding the lease: `<stage>:<BullMQ job id>`. */
  holder: string;
  /** The BullMQ job's start count (attemptsStarted): every retry and every takeover raises it. */
  epoch: number;
  /** The BullMQ lock token of this start. */
  token: string;
}

/** An entry of the live-lease index whose expiry has passed (what the sweeper reads). */
export interface ExpiredLease {
  jobId: string;
  /** `queue` for a record still queued, else `<stage>:<BullMQ job id>`. */
  holder: string;
  expiredAt: number;
}

export type BatchStatus = 'queued' | 'processing' | 'done' | 'failed' | 'partial';

export interface BatchFileView {
  index: number;
  name: string;
  jobId: string;
  status: JobStatus | 'expired';
  phase?: Phase;
  progress?: { done: number; total: number };
  error?: JobError;
}

export interface BatchView {
  batchId: string;
  tenant: string;
  status: BatchStatus;
  total: number;
  completed: number;
  failed: number;
  createdAt: string;
  files: BatchFileView[];
}
