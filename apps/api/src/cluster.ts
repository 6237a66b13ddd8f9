import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { ConfigError, EXIT_CONFIG_ERROR, loadConfig, RestartBackoff, type Config } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { AdminCredentials } from './admin/admin-role.js';
import { ApiKeyRing } from './auth/api-keys.js';
import { assertPublicUrlConfigured } from './http/base-url.js';
import { CLUSTER_METRICS_ENV, serveClusterMetrics } from './metrics/cluster-metrics.js';

/**
 * `API_INSTANCES` HTTP servers sharing one port (node:cluster). Used by `npm start` and by the
 * `api` container; under PM2, cluster mode runs main.js directly instead.
 */

/** After SIGKILL only a process stuck in the kernel is still around; do not wait on it forever. */
const KILL_WAIT_MS = 5_000;

interface Slot {
  index: number;
  worker: Worker | undefined;
  startedAt: number;
  backoff: RestartBackoff;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Everything a worker checks at start, checked once here before any fork: an invalid value stops
 * the cluster at once with its message, instead of workers that die and are restarted forever.
 */
function readConfig(): Config {
  try {
    const config = loadConfig();
    const keys = ApiKeyRing.fromConfig(config.tenancy);
    AdminCredentials.fromConfig(config, keys);
    assertPublicUrlConfigured(config.http, config.production);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(EXIT_CONFIG_ERROR);
    }
    throw err;
  }
}

const config = readConfig();
const logger = createLogger({ component: 'api-cluster', level: config.logLevel, format: config.logFormat });
let shuttingDown = false;
/** What the primary exits with once its workers are gone. */
let exitCode = 0;

cluster.setupPrimary({ exec: fileURLToPath(new URL('./main.js', import.meta.url)) });
// /metrics in any worker answers for all of them (metrics/cluster-metrics.ts).
serveClusterMetrics();

const slots: Slot[] = Array.from({ length: config.http.apiInstances }, (_, index) => ({
  index,
  worker: undefined,
  startedAt: 0,
  backoff: new RestartBackoff(),
  timer: undefined,
}));

function fork(slot: Slot): void {
  const worker = cluster.fork({ [CLUSTER_METRICS_ENV]: '1' });
  slot.worker = worker;
  slot.startedAt = Date.now();
  worker.once('online', () => logger.info('API worker started', { slot: slot.index, workerPid: worker.process.pid }));
  worker.once('exit', (code: number | null, signal: NodeJS.Signals | null) => onWorkerExit(slot, worker, code, signal));
}

function onWorkerExit(slot: Slot, worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
  if (slot.worker === worker) slot.worker = undefined;
  const uptimeMs = Date.now() - slot.startedAt;
  if (shuttingDown) {
    logger.info('API worker stopped', { slot: slot.index, workerPid: worker.process.pid, code, signal });
    if (slots.every((s) => !s.worker)) finish();
    return;
  }
  if (code === EXIT_CONFIG_ERROR) {
    // Its message is on stderr already; a restart would only print it again, every 30 s.
    logger.error('API worker refused its configuration; stopping the cluster', { slot: slot.index, workerPid: worker.process.pid });
    exitCode = EXIT_CONFIG_ERROR;
    shutdown('SIGTERM');
    return;
  }
  // Every other exit outside a shutdown is a crash: a healthy API server never leaves by itself.
  const restartInMs = slot.backoff.next(uptimeMs);
  logger.warn('API worker exited unexpectedly; restarting', { slot: slot.index, workerPid: worker.process.pid, code, signal, uptimeMs, restartInMs });
  slot.timer = setTimeout(() => {
    slot.timer = undefined;
    if (!shuttingDown) fork(slot);
  }, restartInMs);
}

let killTimer: NodeJS.Timeout | undefined;
/** A repeat this soon is one Ctrl-C delivered twice (terminal group plus a forwarding npm), not a second. */
const REPEAT_SIGNAL_WINDOW_MS = 1_000;
let shutdownStartedAt = 0;

function shutdown(signal: NodeJS.Signals): void {
  if (shuttingDown) {
    if (Date.now() - shutdownStartedAt < REPEAT_SIGNAL_WINDOW_MS) return;
    logger.warn('second signal: killing API workers now', { signal });
    killAll();
    process.exit(1);
  }
  shuttingDown = true;
  shutdownStartedAt = Date.now();
  for (const slot of slots) {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
  }
  const live = slots.filter((s) => s.worker);
  logger.info('shutting down API workers', { signal, workers: live.length, graceMs: config.shutdownGraceMs });
  if (live.length === 0) return finish();
  // SIGTERM, not worker.disconnect(): main.js owns its graceful stop (stop accepting, drain
  // in-flight requests, close Redis) and runs the same code under PM2 or in a container.
  for (const slot of live) slot.worker?.process.kill('SIGTERM');
  killTimer = setTimeout(() => {
    logger.warn('API workers still running after the grace period; killing them', { graceMs: config.shutdownGraceMs });
    killAll();
    setTimeout(finish, KILL_WAIT_MS).unref();
  }, config.shutdownGraceMs);
}

function killAll(): void {
  for (const slot of slots) slot.worker?.process.kill('SIGKILL');
}

function finish(): void {
  if (killTimer) clearTimeout(killTimer);
  logger.info('API cluster stopped');
  process.exit(exitCode);
}

process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
// Started by `npm start` with an IPC channel: if the supervisor dies (even SIGKILL), stop too.
if (process.send) process.on('disconnect', () => shutdown('SIGTERM'));

logger.info('starting API workers', { instances: slots.length, listenHost: config.http.host, listenPort: config.http.port });
for (const slot of slots) fork(slot);
