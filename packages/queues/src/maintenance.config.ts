import { z } from 'zod';

/**
 * maintenance: periodic housekeeping, run by whichever consumer process is free.
 *
 * Registered with `upsertJobScheduler` under FIXED ids at every consumer start: re-registering is
 * an update, never a second schedule (schedules re-created at every start would pile up, one more
 * run per tick with each deploy). `npm run ops -- schedulers` lists them and flags duplicates.
 *
 * - sweeper (default every 60 s): fails records left `processing` whose lease lapsed and for which no
 *   queue holds a live job, and `queued` records older than 5 minutes with no queued job (orphans).
 * - janitor (default every 10 min): removes expired packages, unreferenced blobs past their grace
 *   period, and stale spool files.
 * - one attempt, no retry: the next tick is the retry; completed/failed runs kept briefly for Bull Board.
 */
export const MAINTENANCE_QUEUE = 'maintenance';
export const MAINTENANCE_TASKS = ['sweeper', 'janitor'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

export const maintenancePayload = z.object({ task: z.enum(MAINTENANCE_TASKS) }).strict();

export const maintenanceJobOptions = {
  attempts: 1,
  removeOnComplete: { count: 50 },
  removeOnFail: { count: 200 },
} as const;
