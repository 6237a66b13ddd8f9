import { z } from 'zod';

/**
 * maintenance: periodic housekeeping, run by whichever consumer process is free.
 *
 * Registered with `upsertJobScheduler` under FIXED ids at every consumer start: re-registering is
 * an update, never a second schedule (schedules re-created at every start would pile up, one more
 * run per tick with each deploy). `npm run ops -- schedulers` lists them and flags duplicates.
 *
 * - sweeper (default every 60 s): reads the live-lease index's expired entries only (never every
 *   record) and fails records that no queue will finish: a lapsed consumer lease whose own stage
 *   job is gone, or a record waiting more than 5 minutes, when neither the document's extract nor its
 *   assemble job is live (orphans).
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
