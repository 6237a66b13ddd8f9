import type { Config } from '@readpack/config';
import type { JobStateStore } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { Storage } from '@readpack/package-store';
import type { QueueProducer, WebhookAllowList } from '@readpack/queues';
import type { SecretBox } from '@readpack/secrets';
import type { RedisClient } from '@readpack/redis';
import type { AdminCredentials } from './admin/admin-role.js';
import type { ApiKeyRing } from './auth/api-keys.js';
import type { StreamReaders } from './events/stream-readers.js';
import type { TenantAdmission } from './limits/active-jobs.js';
import type { PackageReads } from './limits/package-reads.js';
import type { UploadRateLimiter } from './limits/upload-rate.js';
import type { FleetMetrics } from './metrics/fleet-metrics.js';
import type { HttpMetrics } from './metrics/http-metrics.js';

/** Everything a request handler may use. Built once per process in server.ts; no job state in memory. */
export interface ApiContext {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  /** The connection BullMQ's queues use: every upload enqueues on it, so readiness asks it too. */
  queueRedis: RedisClient;
  state: JobStateStore;
  producer: QueueProducer;
  /** WEBHOOK_ALLOW_HOSTS: private targets a callbackUrl may name nonetheless. */
  webhookTargets: WebhookAllowList;
  storage: Storage;
  /** Tenant API keys (empty: single-tenant dev mode). */
  keys: ApiKeyRing;
  admin: AdminCredentials;
  /** Seals secrets for job payloads and hashes them for identities (key in DATA_DIR). */
  secrets: SecretBox;
  uploadRate: UploadRateLimiter;
  /** Redis connections of the open Server-Sent Events streams (bounded per process). */
  events: StreamReaders;
  admission: TenantAdmission;
  /** Turns for reading large packages (PACKAGE_READ_BUDGET_MB): their answers hold the whole package in memory. */
  packageReads: PackageReads;
  /** Prometheus metrics: this process's HTTP registry, the cluster's sum of it, the fleet read from Redis. */
  metrics: { http: HttpMetrics; httpText: () => Promise<string>; fleet: FleetMetrics };
}
