import type { Job, Queue, Worker, WorkerOptions } from 'bullmq';
import type { Config, Stage } from '@readpack/config';
import type { LeasedJobState, Phase } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { MinerUClient } from '@readpack/mineru-client';
import type { Storage } from '@readpack/package-store';
import type { PayloadOf, QueueProducer } from '@readpack/queues';
import type { OcrReader } from '@readpack/ocr';
import type { SecretBox } from '@readpack/secrets';
import type { Classified } from './failures.js';
import type { LibreOffice } from './libreoffice.js';
import type { ParsePool } from './parse-pool.js';
import type { RenderPool } from './render-pool.js';

/**
 * Heavy or external resources a stage may declare, and their types. The runner creates only
 * what its stage declares (services.ts, by dynamic import: a consumer loads the libraries of its
 * own stage only), and a handler's context has exactly those, typed, never optional.
 * `mineru` is undefined when the deployment configures no MinerU (MINERU_URL): a state of the
 * deployment the stage answers (`mineru_unavailable`), not a missing service.
 */
export interface NeedTypes {
  parsePool: ParsePool;
  renderPool: RenderPool;
  ocr: OcrReader;
  mineru: MinerUClient | undefined;
  secrets: SecretBox;
  /** The convert stage's converter; its consumer publishes availability in Redis while it runs. */
  libreoffice: LibreOffice;
}
export type StageNeed = keyof NeedTypes;

/** What every stage handler gets, whatever it declares. */
export interface BaseServices {
  config: Config;
  /** The job-state writes under this job's lease: a refused (fenced) write throws LeaseLostError. */
  state: LeasedJobState;
  storage: Storage;
  producer: QueueProducer;
  /** Whether some convert consumer is running (packages/queues/src/converter.ts), read from Redis. */
  converterAvailable(): Promise<boolean>;
  /**
   * This process consumes assemble too (a consumer group, as `npm start` runs the light stages):
   * an extract job assembles a document with nothing to wait for itself rather than queue its
   * assemble job to this same process (stages/extract.ts).
   */
  assemblesHere: boolean;
}

export interface JobContext {
  /** Bound to this job: every line carries jobId, stage, pid and host. */
  logger: Logger;
  job: Job;
  /** The BullMQ worker running the job (to rate-limit its whole queue). */
  worker: Worker;
}

export type StageContext<N extends StageNeed = never> = BaseServices & JobContext & { [K in N]: NeedTypes[K] };

/**
 * One stage's handler, its options and its next step live together in its own module
 * (stages/<stage>.ts). The runner (runner.ts) owns everything common: payload validation, the
 * job record's start/heartbeat/release under the consumer's lease, and the one path that records
 * a final failure.
 */
export interface StageHandler<S extends Stage, N extends StageNeed = StageNeed> {
  stage: S;
  /** The job-record phase while this stage works. */
  phase: Phase;
  needs: readonly N[];
  /**
   * Who ends the job when this stage fails for good. `job`: the runner marks the record failed
   * (and dead-letters it when an operator can act on the code). `parent`: the stage is a child in
   * a flow (a page, a MinerU call); it completes with a typed failure (ChildFailed) that its parent
   * reads with its children's values and decides what the document becomes.
   */
  failureOwner: 'job' | 'parent';
  /**
   * Its jobs are flow parents (assemble, a page's OCR): they wait for their children before
   * they queue, so the time from enqueue to start is traced as `queue.fan_in`, not `queue.wait`.
   */
  waitsForChildren?: true;
  /** The value a child returns reaches its parent (`job.getChildrenValues()`). */
  handle(payload: PayloadOf<S>, ctx: StageContext<N>): Promise<unknown>;
  /** A child stage's last word when it fails for good (e.g. count the page as finished). */
  onGaveUp?(payload: PayloadOf<S>, ctx: StageContext<N>, failure: Classified): Promise<void>;
  /** Extra worker options (e.g. a rate limiter), from the deployment's configuration. */
  workerOptions?(config: Config): Partial<WorkerOptions>;
  /** Queue-wide settings applied at start (idempotent), e.g. global concurrency. */
  configureQueue?(queue: Queue, config: Config): Promise<void>;
}

/** A handler whose `needs` are inferred from the list it declares (so its context is typed by them). */
export function defineStage<S extends Stage, const N extends StageNeed = never>(handler: StageHandler<S, N>): StageHandler<S, N> {
  return handler;
}
