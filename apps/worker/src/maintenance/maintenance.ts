import { Queue, Worker, type Job } from 'bullmq';
import type { Config } from '@readpack/config';
import { QUEUED_GRACE_MS, type JobStateStore } from '@readpack/job-state';
import type { Logger } from '@readpack/logging';
import type { Storage } from '@readpack/package-store';
import { bullPrefix, MAINTENANCE_QUEUE, maintenanceJobOptions, maintenancePayload, QUEUES, type MaintenanceTask, type QueueName } from '@readpack/queues';
import type { RedisClient } from '@readpack/redis';
import { cleanExpired } from './janitor.js';
import { sweepOrphans } from './sweeper.js';

/**
 * Registers the periodic tasks and runs them. Every consumer process does both: registration is
 * `upsertJobScheduler` under a fixed id per task, so any number of starts leaves exactly one
 * scheduler per task, and each scheduled run is taken by exactly one free process.
 */
export async function startMaintenance(deps: {
  config: Config;
  connection: RedisClient;
  state: JobStateStore;
  storage: Storage;
  logger: Logger;
}): Promise<{ close(): Promise<void> }> {
  const { config, connection, logger } = deps;
  const prefix = bullPrefix(config.redis.prefix);
  const onError = (error: Error) => logger.warn('maintenance queue connection error', { stage: 'maintenance', error: error.message });
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  queue.on('error', onError);
  const every: Record<MaintenanceTask, number> = {
    sweeper: config.maintenance.sweeperIntervalMs,
    janitor: config.maintenance.janitorIntervalMs,
  };
  for (const task of Object.keys(every) as MaintenanceTask[]) {
    await queue.upsertJobScheduler(task, { every: every[task] }, { name: task, data: { task }, opts: maintenanceJobOptions });
  }

  const stageQueues = Object.fromEntries(
    (Object.keys(QUEUES) as QueueName[]).map((stage) => [stage, new Queue(QUEUES[stage].name, { connection, prefix })]),
  ) as Record<QueueName, Queue>;
  for (const q of Object.values(stageQueues)) q.on('error', onError);
  const grace = (config.ttl.queuedSeconds + config.ttl.processingSeconds) * 1_000;

  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async (job: Job) => {
      const { task } = maintenancePayload.parse(job.data);
      if (task === 'sweeper') {
        const report = await sweepOrphans(deps.state, stageQueues, { recheckMs: QUEUED_GRACE_MS });
        if (report.orphaned.length > 0) logger.warn('sweeper failed orphaned jobs', { stage: 'maintenance', jobIds: report.orphaned });
        return { examined: report.examined, rearmed: report.rearmed, forgotten: report.forgotten, orphaned: report.orphaned.length };
      }
      const report = await cleanExpired(deps.state, deps.storage, { blobGraceMs: grace, spoolGraceMs: 3_600_000, packageGraceMs: 3_600_000 });
      const { problems, ...counts } = report;
      for (const { path, error } of problems) logger.warn('janitor could not clean a path', { stage: 'maintenance', path, error });
      logger.info('janitor finished', { stage: 'maintenance', ...counts, problems: problems.length });
      return report;
    },
    { connection, prefix, concurrency: 1 },
  );
  worker.on('error', (error) => logger.error('maintenance worker error', { stage: 'maintenance', error: error.message }));
  worker.on('failed', (job, error) => logger.error('maintenance task failed', { stage: 'maintenance', task: job?.name, error: error.message }));

  return {
    async close() {
      await worker.close();
      await Promise.all([queue.close(), ...Object.values(stageQueues).map((q) => q.close())]);
    },
  };
}
