import type { Queue } from 'bullmq';
import type { JobRecord, JobStateStore } from '@readpack/job-state';
import { QUEUES, RENDITION_PART, stageJobId, type QueueName } from '@readpack/queues';

/** A BullMQ job in one of these states will still run: its record is not an orphan. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** A `queued` record younger than this may simply not be enqueued yet (the API writes it first). */
const QUEUED_GRACE_MS = 5 * 60_000;

export interface SweepReport {
  scanned: number;
  orphaned: string[];
}

/**
 * Fails records that nothing will ever finish: `processing` with a lapsed lease, or `queued` past
 * the grace period, when no stage queue holds a live job for them (the process that held the job
 * died and BullMQ already gave up on it, or the enqueue after upload failed). Takeover of a dead
 * consumer's job is BullMQ's stall check; the sweeper only catches what falls through it.
 */
export async function sweepOrphans(state: JobStateStore, queues: Record<QueueName, Queue>, now = Date.now()): Promise<SweepReport> {
  const report: SweepReport = { scanned: 0, orphaned: [] };
  for await (const ids of state.scanJobIds()) {
    for (const jobId of ids) {
      report.scanned += 1;
      const record = await state.getJob(jobId);
      if (!record || !looksAbandoned(record, now)) continue;
      const live = await liveQueueJob(record, queues);
      if (live) continue;
      const result = await state.fail(
        { jobId, batchId: record.batch?.batchId },
        { code: 'orphaned', message: 'The job lost its consumer and no queue holds it any more; upload it again.' },
      );
      if (result.applied) report.orphaned.push(jobId);
    }
  }
  return report;
}

function looksAbandoned(record: JobRecord, now: number): boolean {
  if (record.status === 'processing') return record.leaseUntil !== undefined && Date.parse(record.leaseUntil) < now;
  if (record.status === 'queued') return Date.parse(record.updatedAt) < now - QUEUED_GRACE_MS;
  return false;
}

async function liveQueueJob(record: JobRecord, queues: Record<QueueName, Queue>): Promise<boolean> {
  // The extract job of a converted document (`<jobId>-extract-pdf`) counts as well.
  const ids: [QueueName, string][] = [
    ...(Object.keys(QUEUES) as QueueName[]).map((stage): [QueueName, string] => [stage, stageJobId(record.jobId, stage, record.series)]),
    ['extract', stageJobId(record.jobId, 'extract', record.series, RENDITION_PART)],
  ];
  for (const [stage, id] of ids) {
    const job = await queues[stage].getJob(id);
    if (job && LIVE_STATES.has(await job.getState())) return true;
  }
  return false;
}
