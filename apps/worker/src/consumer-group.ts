import type { Config, ConsumerRole, Stage } from '@readpack/config';
import type { Logger } from '@readpack/logging';
import { startMaintenance } from './maintenance/maintenance.js';
import { openConsumerResources, startConsumer, type RunningConsumer } from './runner.js';
import { startWebhookConsumer } from './webhooks/consumer.js';

export interface RunningGroup {
  roles: readonly ConsumerRole[];
  /** Stops every consumer of the process together (each drains within the grace period), then what they share. */
  close(): Promise<void>;
}

/**
 * The consumers of one worker process. One role runs exactly as a process of its own always has.
 * Several (READPACK_STAGES=extract,assemble) run one BullMQ worker each, with its own concurrency,
 * leases and metrics labels, over one shared Redis connection, blob store and producer, and one
 * maintenance worker for the process. A handler's libraries are still loaded by its stage only
 * (services.ts); stages start one after the other so their imports do not compete.
 */
export async function startConsumerGroup(roles: readonly ConsumerRole[], config: Config, logger: Logger): Promise<RunningGroup> {
  if (roles.length === 1) {
    const [role] = roles as [ConsumerRole];
    const consumer = role === 'webhook' ? await startWebhookConsumer(config, logger) : await startConsumer(role, config, logger);
    return { roles, close: () => consumer.close() };
  }
  const stages = roles.filter((role): role is Stage => role !== 'webhook');
  const resources = await openConsumerResources(roles.join('+'), config, logger);
  const running: { close(): Promise<void> }[] = [];
  const closeAll = async () => {
    // Every consumer drains at once: one grace period for the process, not one per stage.
    const results = await Promise.allSettled(running.splice(0).map((consumer) => consumer.close()));
    await resources.close();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  try {
    const consumers: RunningConsumer[] = [];
    for (const stage of stages) {
      const consumer = await startConsumer(stage, config, logger, resources, stages);
      consumers.push(consumer);
      running.push(consumer);
    }
    if (roles.includes('webhook')) running.push(await startWebhookConsumer(config, logger));
    // The sweeper and janitor are per process, not per stage; any stage's view of the store serves.
    if (consumers[0]) running.push(await startMaintenance({ config, connection: resources.connection, state: consumers[0].state, storage: resources.storage, logger }));
  } catch (error) {
    // What started must not keep taking jobs from a process that is about to exit.
    await closeAll().catch((closeError: unknown) => logger.error('stop after a failed start failed', { error: String(closeError) }));
    throw error;
  }
  logger.info('consumers started', { roles });
  return { roles, close: closeAll };
}
