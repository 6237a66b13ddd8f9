import type { JobsOptions } from 'bullmq';
import type { z } from 'zod';

/** One queue: its name, payload schema, job options and lease settings, in one explained place. */
export interface QueueDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  jobOptions: JobsOptions;
  worker: {
    /** How long a consumer's lock on a job holds without renewal (renewed every half of it). */
    lockDuration: number;
    /** How often live consumers look for jobs whose lock expired (the takeover check). */
    stalledInterval: number;
    /** Stalls tolerated before the job is failed for good (poison-document bound). */
    maxStalledCount: number;
    /** Starts allowed in all (attempts + stalls): a second, independent poison bound; 0 = no cap. */
    maxStartedAttempts: number;
  };
}
