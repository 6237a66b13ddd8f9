import { ConfigError, EXIT_CONFIG_ERROR, loadConfig, STAGES, type Stage } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { serviceName, startTracing } from '@readpack/tracing';
import { startConsumer } from './runner.js';
import { startWebhookConsumer } from './webhooks/consumer.js';
import { assertAllStagesHandled } from './stages/index.js';

/**
 * One consumer process for one stage: `node apps/worker/dist/main.js <stage>` (or READPACK_STAGE).
 * Each stage runs in processes of its own so operators scale it alone.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const stage = (process.argv[2] ?? config.stage) as Stage | 'webhook' | undefined;
  if (!stage || !([...STAGES, 'webhook'] as readonly string[]).includes(stage)) {
    throw new ConfigError([{ variable: 'READPACK_STAGE', message: `give one of ${STAGES.join(', ')}, webhook (argument or READPACK_STAGE)` }]);
  }
  assertAllStagesHandled();
  const logger = createLogger({ level: config.logLevel, component: `worker-${stage}`, format: config.logFormat });
  const tracing = await startTracing(config.tracing, serviceName(stage));
  // Signals are handled from the start: a consumer takes jobs before startConsumer has resolved
  // (its worker runs while the maintenance and metrics workers still start), and a SIGTERM in that
  // window must still let the job in hand finish rather than kill the process.
  const running: { consumer?: { close(): Promise<void> } } = {};
  let stopping = false;
  const close = () =>
    running.consumer!
      .close()
      // The spans of the jobs that finished during the grace period are exported before the exit.
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error('stop failed', { stage, error: String(error) });
          process.exit(1);
        },
      );
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { stage, signal });
    if (running.consumer) void close();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Webhook delivery is a consumer of its own queue, not a pipeline stage: it never touches a job record.
  running.consumer = stage === 'webhook' ? await startWebhookConsumer(config, logger) : await startConsumer(stage, config, logger);
  if (stopping) void close();
  // Started by `npm start` (or PM2) with an IPC channel: when the parent dies, stop rather than
  // run on unsupervised. The job in hand finishes or is taken over; nothing is lost.
  if (process.send) process.on('disconnect', () => stop('parent gone'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `worker failed to start: ${error instanceof Error ? error.stack : String(error)}`}\n`);
  // A manager must not restart a process whose configuration no restart can fix.
  process.exit(error instanceof ConfigError ? EXIT_CONFIG_ERROR : 1);
});
