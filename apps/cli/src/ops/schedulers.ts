import { Queue } from 'bullmq';
import { MAINTENANCE_QUEUE, MAINTENANCE_TASKS } from '@readpack/queues';
import type { OpsContext } from './connection.js';

export interface SchedulerRow {
  id: string;
  every: string;
  next: string;
  /** What is wrong with it, or '' when nothing is. */
  flag: string;
}

/** The periodic tasks as registered, each flagged when unknown, duplicated or missing. */
export async function schedulerRows({ connection, prefix }: OpsContext): Promise<SchedulerRow[]> {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  try {
    const list = await queue.getJobSchedulers(0, -1, true);
    const seen = new Map<string, number>();
    for (const s of list) seen.set(s.name, (seen.get(s.name) ?? 0) + 1);
    const rows: SchedulerRow[] = list.map((s) => {
      const known = (MAINTENANCE_TASKS as readonly string[]).includes(s.key);
      const duplicate = (seen.get(s.name) ?? 0) > 1;
      return { id: s.key, every: String(s.every ?? s.pattern ?? ''), next: s.next ? new Date(s.next).toISOString() : '', flag: !known ? 'UNKNOWN (not a Readpack task id)' : duplicate ? 'DUPLICATE' : '' };
    });
    for (const task of MAINTENANCE_TASKS) {
      if (!list.some((s) => s.key === task)) rows.push({ id: task, every: '', next: '', flag: 'MISSING (starts with the first consumer)' });
    }
    return rows;
  } finally {
    await queue.close();
  }
}
