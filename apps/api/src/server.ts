import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Config } from '@readpack/config';
import { JobStateStore } from '@readpack/job-state';
import { createLogger, PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import { openStorage } from '@readpack/package-store';
import { QueueProducer, WebhookAllowList, WebhookEnqueuer } from '@readpack/queues';
import { createProducerConnection } from '@readpack/redis';
import { StreamReaders } from './events/stream-readers.js';
import { openSecretBox } from '@readpack/secrets';
import { AdminCredentials } from './admin/admin-role.js';
import { createApp } from './app.js';
import { assertPublicUrlConfigured } from './http/base-url.js';
import { ApiKeyRing } from './auth/api-keys.js';
import type { ApiContext } from './context.js';
import { TenantAdmission } from './limits/active-jobs.js';
import { PackageReads } from './limits/package-reads.js';
import { UploadRateLimiter } from './limits/upload-rate.js';
import { announceAccessMode } from './startup/dev-mode.js';
import { clusterHttpMetrics } from './metrics/cluster-metrics.js';
import { FleetMetrics } from './metrics/fleet-metrics.js';
import { HttpMetrics } from './metrics/http-metrics.js';

export interface RunningApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Builds the API's dependencies from the configuration and starts listening. */
export async function startApi(config: Config, logger: Logger = createLogger({ level: config.logLevel, component: 'api', format: config.logFormat })): Promise<RunningApi> {
  // Credentials first: a bad key file stops the process before it touches Redis or the disk.
  const keys = ApiKeyRing.fromConfig(config.tenancy);
  const admin = AdminCredentials.fromConfig(config, keys);
  assertPublicUrlConfigured(config.http, config.production);
  announceAccessMode(config, keys, logger);
  const redis = createProducerConnection({ url: config.redis.url, commandTimeoutMs: config.redis.commandTimeoutMs }, `readpack-api:${PROCESS_IDENTITY}`);
  // Outages are answered per request (503); the connection's own errors are only logged.
  redis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message }));
  // BullMQ defines its ~50 scripts on the connection it is given, and ioredis auto-pipelining copies
  // every defined script into each pipeline it builds: on the status and upload connection that
  // copy cost ~6 % of the API's CPU. BullMQ's adds are a few a request and gain nothing from
  // pipelining, so its queues get a connection of their own, with the same fail-fast profile.
  const queueRedis = createProducerConnection(
    { url: config.redis.url, commandTimeoutMs: config.redis.commandTimeoutMs, autoPipelining: false },
    `readpack-api-queues:${PROCESS_IDENTITY}`,
  );
  queueRedis.on('error', (error: Error) => logger.warn('redis connection error', { error: error.message, connection: 'queues' }));
  const producer = new QueueProducer(queueRedis, config.redis.prefix, { onError: (error) => logger.warn('queue connection error', { error: error.message }) });
  const http = new HttpMetrics();
  const webhooks = new WebhookEnqueuer(queueRedis, config.redis.prefix, config.webhooks, (error) => logger.warn('webhook queue connection error', { error: error.message }));
  const ctx: ApiContext = {
    config,
    logger,
    redis,
    queueRedis,
    state: new JobStateStore(redis, {
      prefix: config.redis.prefix,
      ttl: { queuedSeconds: config.ttl.queuedSeconds, processingSeconds: config.ttl.processingSeconds, resultSeconds: config.ttl.resultSeconds },
      leaseMs: 0, // the API never holds a job; only consumers take leases
      actor: PROCESS_IDENTITY,
      // The API ends a job only when its enqueue failed (enqueue_failed): that end is notified too.
      onTerminal: (notice) => webhooks.notify(notice),
    }),
    webhookTargets: new WebhookAllowList(config.webhooks.allow),
    producer,
    storage: await openStorage(resolve(config.dataDir), config.storage.s3),
    keys,
    admin,
    secrets: await openSecretBox(resolve(config.dataDir)),
    events: new StreamReaders(config.redis.url, config.events.maxStreamsPerProcess),
    uploadRate: new UploadRateLimiter(redis, config.redis.prefix, config.tenancy.uploadRatePerMinute),
    packageReads: new PackageReads(config.limits.packageReadBudgetBytes),
    admission: new TenantAdmission(redis, {
      prefix: config.redis.prefix,
      limit: config.tenancy.maxActiveJobsPerTenant,
      // An active job lives at most this long without a heartbeat; an idle tenant's set goes with it.
      ttlSeconds: config.ttl.queuedSeconds + config.ttl.processingSeconds,
    }),
    metrics: { http, httpText: clusterHttpMetrics(http.registry, logger), fleet: new FleetMetrics(redis, config.redis.prefix, () => producer.opsQueues(), logger) },
  };
  const app = createApp(ctx);
  const server = await new Promise<Server>((resolveServer, reject) => {
    const s = app.listen(config.http.port, config.http.host, () => resolveServer(s));
    s.once('error', reject);
  });
  // Slow clients must not pin sockets forever; uploads get generous but finite time.
  server.requestTimeout = 15 * 60_000;
  server.headersTimeout = 30_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.http.port;
  const url = `http://${config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host}:${port}`;
  logger.info('api listening', { url });
  return {
    server,
    url,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      // Event streams would hold server.close() open for as long as their jobs run.
      ctx.events.closeAll();
      await closed;
      server.closeAllConnections();
      await Promise.all([ctx.producer.close(), webhooks.close()]);
      queueRedis.disconnect();
      redis.disconnect();
    },
  };
}
