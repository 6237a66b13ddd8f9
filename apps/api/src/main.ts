import cluster from 'node:cluster';
import { ConfigError, EXIT_CONFIG_ERROR, loadConfig } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { surviveRedisOutageRejections } from '@readpack/redis';
import { serviceName, startTracing } from '@readpack/tracing';
import { startApi } from './server.js';

/** One API process (PM2 cluster mode runs one per instance; cluster.ts forks several). */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, component: 'api', format: config.logFormat });
  surviveRedisOutageRejections((error) => logger.warn('a Redis command failed during an outage and nothing awaited it', { error: error.message }));
  // Before the server: spans need the provider registered from the first request on.
  const tracing = await startTracing(config.tracing, serviceName('api'));
  const api = await startApi(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('api stopping', { signal });
    const force = setTimeout(() => process.exit(0), config.shutdownGraceMs).unref();
    // The last spans (those of requests drained by close) are exported before the exit.
    api.close().then(() => tracing.shutdown()).then(
      () => {
        clearTimeout(force);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('api stop failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // PM2 cluster mode asks workers to stop with a message on Windows and some setups.
  process.on('message', (message) => {
    if (message === 'shutdown') stop('shutdown');
  });
  // Started directly by `npm start` (API_INSTANCES=1) with an IPC channel: when the supervisor dies,
  // stop rather than hold the port unsupervised. A cluster worker's channel is its primary's, which
  // stops its workers itself.
  if (process.send && cluster.isPrimary) process.on('disconnect', () => stop('parent gone'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(EXIT_CONFIG_ERROR);
  }
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
