import type { Job, Queue, Worker, WorkerOptions } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import type { JobStateStore, Phase } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { MinerUClient } from '@readpack/mineru-client';
import type { Storage } from '@readpack/package-store';
import type { PayloadOf, QueueProducer } from '@readpack/queues';
import type { OcrReader } from '@readpack/ocr';
import type { SecretBox } from '@readpack/secrets';
import type { Classified } from './failures.js';
import type { ParsePool } from './parse-pool.js';
import type { RenderPool } from './render-pool.js';

/** Heavy or external resources a stage may need; the runner creates only what its stage declares. */
export type StageNeed = 'parsePool' | 'renderPool' | 'ocr' | 'mineru' | 'secrets';

/** What a stage handler gets besides its payload. */
export interface StageServices {
  config: Config;
  state: JobStateStore;
  storage: Storage;
  producer: QueueProducer;
  parsePool?: ParsePool;
  renderPool?: RenderPool;
  ocr?: OcrReader;
  mineru?: MinerUClient;
  secrets?: SecretBox;
}

export interface StageContext extends StageServices {
  /** Bound to this job: every line carries jobId, stage, pid and host. */
  logger: Logger;
  job: Job;
  /** The BullMQ worker running the job (to rate-limit its whole queue). */
  worker: Worker;
}

/**
 * One stage's handler, its options and its next step live together in its own module
 * (stages/<stage>.ts). The runner (runner.ts) owns everything common: payload validation,
 * the job record's start/heartbeat/failure, and error classification.
 */
export interface StageHandler<S extends Stage> {
  stage: S;
  /** The job-record phase while this stage works. */
  phase: Phase;
  needs: readonly StageNeed[];
  /**
   * Who ends the job when this stage fails for good. `job`: the runner marks the record failed and
   * writes a dead letter. `parent`: the stage is a child in a flow (a page, a MinerU call); its
   * parent assemble job reads the failure and decides what the document becomes.
   */
  failureOwner: 'job' | 'parent';
  /** The value a child returns reaches its parent (`job.getChildrenValues()`). */
  handle(payload: PayloadOf<S>, ctx: StageContext): Promise<unknown>;
  /** A child stage's last word when it fails for good (e.g. count the page as finished). */
  onGaveUp?(payload: PayloadOf<S>, ctx: StageContext, failure: Classified): Promise<void>;
  /** Extra worker options (e.g. a rate limiter), from the deployment's configuration. */
  workerOptions?(config: Config): Partial<WorkerOptions>;
  /** Queue-wide settings applied at start (idempotent), e.g. global concurrency. */
  configureQueue?(queue: Queue, config: Config): Promise<void>;
}
