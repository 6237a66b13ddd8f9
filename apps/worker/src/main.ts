import { ConfigError, CONSUMER_ROLES, EXIT_CONFIG_ERROR, loadConfig, parseRoleList, type Config, type ConsumerRole } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { surviveRedisOutageRejections } from '@readpack/redis';
import { serviceName, startTracing } from '@readpack/tracing';
import { startConsumerGroup } from './consumer-group.js';
import { assertAllStagesHandled } from './stages/index.js';

/**
 * A consumer process: `node apps/worker/dist/main.js <stage> [<stage>…]` (or READPACK_STAGES, or
 * READPACK_STAGE). One stage per process scales it alone; several light stages may share one
 * process so a small install runs fewer (consumer-group.ts).
 */
function rolesOf(args: readonly string[], config: Config): readonly ConsumerRole[] {
  if (args.length > 0) {
    const roles = parseRoleList(args.join(','));
    if (!roles) throw new ConfigError([{ variable: 'argument', message: `${args.join(' ')}: give stages among ${CONSUMER_ROLES.join(', ')}` }]);
    return roles;
  }
  const roles = config.workerStages ?? (config.stage ? [config.stage] : undefined);
  if (!roles) throw new ConfigError([{ variable: 'READPACK_STAGES', message: `give stages among ${CONSUMER_ROLES.join(', ')} (arguments, READPACK_STAGES or READPACK_STAGE)` }]);
  return roles;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const roles = rolesOf(process.argv.slice(2), config);
  const stage = roles.join('+');
  assertAllStagesHandled();
  const logger = createLogger({ level: config.logLevel, component: `worker-${stage}`, format: config.logFormat });
  surviveRedisOutageRejections((error) => logger.warn('a Redis command failed during an outage and nothing awaited it', { stage, error: error.message }));
  const tracing = await startTracing(config.tracing, serviceName(roles));
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
  running.consumer = await startConsumerGroup(roles, config, logger);
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
