import type { Config } from '@readpack/config';
import type { JobStateStore } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { Storage } from '@readpack/package-store';
import type { QueueProducer } from '@readpack/queues';
import type { Redis } from 'ioredis';

/** Everything a request handler may use. Built once per process in main.ts; no job state in memory. */
export interface ApiContext {
  config: Config;
  logger: Logger;
  redis: Redis;
  state: JobStateStore;
  producer: QueueProducer;
  storage: Storage;
}
