import type { Job } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import type { JobStateStore, Phase } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { Storage } from '@readpack/package-store';
import type { PayloadOf, QueueProducer } from '@readpack/queues';
import type { ParsePool } from './parse-pool.js';

/** What a stage handler gets besides its payload. */
export interface StageServices {
  config: Config;
  state: JobStateStore;
  storage: Storage;
  producer: QueueProducer;
  /** Present in stages that parse (created only for them). */
  parsePool?: ParsePool;
}

export interface StageContext extends StageServices {
  /** Bound to this job: every line carries jobId, stage, pid and host. */
  logger: Logger;
  job: Job;
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
  /** Whether this stage needs the parser thread pool. */
  usesParsePool: boolean;
  handle(payload: PayloadOf<S>, ctx: StageContext): Promise<void>;
}
