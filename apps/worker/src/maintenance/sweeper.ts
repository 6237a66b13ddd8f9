import type { JobState, Queue } from 'bullmq';
import type { ExpiredLease, JobStateStore } from '@readpack/job-state';
import { QUEUES, RENDITION_PART, stageJobId, type QueueName } from '@readpack/queues';

/** A BullMQ job in one of these states will still run. */
const LIVE_STATES = new Set<JobState | 'unknown'>(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * While a document is in flight one of these jobs is live: its extract job until it has added the
 * document's flow (for a converted document: extract, then convert, then the extract of the PDF,
 * `<jobId>-extract-pdf`), then its assemble job (waiting for its children, then running). The
 * children (render, OCR, MinerU) only exist under that assemble job.
 */
const DOCUMENT_JOBS: readonly [QueueName, string | undefined][] = [
  ['extract', undefined],
  ['convert', undefined],
  ['extract', RENDITION_PART],
  ['assemble', undefined],
];

/** Most expired entries one sweep handles; the next sweep takes the rest. */
const BATCH = 1_000;

export interface SweepReport {
  /** Expired index entries examined (records are never scanned). */
  examined: number;
  /** Expired entries whose job a queue still holds, made due again later. */
  rearmed: number;
  /** Expired consumer leases whose stage job no queue holds any more, dropped. */
  forgotten: number;
  /** Records failed as `orphaned`. */
  orphaned: string[];
}

/**
 * Fails records that nothing will ever finish, reading only the live-lease index
 * (packages/job-state/scripts/prelude.lua, Leases): its expired entries, by Redis time. The cost
 * of a sweep depends on how many leases expired, not on how many records exist.
 * - `<stage>:<BullMQ id>` (a consumer's lease lapsed): if that very job (the page's, by its real
 *   id) is still in its queue, BullMQ will hand it to another consumer (takeover): look again later.
 *   Otherwise the entry is dropped and the document is judged as below.
 * - `queue` (a record waiting for its next stage job for longer than the grace): if the document's
 *   extract or assemble job is live, look again later; if neither is, nothing will ever finish the
 *   record: it fails as `orphaned` (refused by the script if a consumer took a lease meanwhile).
 * Takeover of a dead consumer's job is BullMQ's stall check; the sweeper only catches what falls through it.
 */
export async function sweepOrphans(state: JobStateStore, queues: Record<QueueName, Queue>, options: { recheckMs: number }): Promise<SweepReport> {
  const report: SweepReport = { examined: 0, rearmed: 0, forgotten: 0, orphaned: [] };
  const { expired } = await state.expiredLeases(BATCH);
  for (const entry of expired) {
    report.examined += 1;
    const series = await state.seriesOf(entry.jobId);
    if (series === 0) {
      // The record expired on its own; only its index entry is left.
      if (await state.forgetLease(entry)) report.forgotten += 1;
      continue;
    }
    if (entry.holder !== 'queue') {
      if (await holderIsLive(entry, queues)) {
        if (await state.rearmLease(entry, options.recheckMs)) report.rearmed += 1;
        continue;
      }
      if (await state.forgetLease(entry)) report.forgotten += 1;
    }
    if (await documentIsLive(entry.jobId, series, queues)) {
      if (entry.holder === 'queue' && (await state.rearmLease(entry, options.recheckMs))) report.rearmed += 1;
      continue;
    }
    const result = await state.fail({ jobId: entry.jobId }, { code: 'orphaned', message: 'The job lost its consumer and no queue holds it any more; upload it again.' }, { series });
    if (result.applied) report.orphaned.push(entry.jobId);
  }
  return report;
}

function holderStage(holder: string): { stage: QueueName; bullJobId: string } | undefined {
  const colon = holder.indexOf(':');
  const stage = holder.slice(0, colon);
  if (colon < 0 || !Object.hasOwn(QUEUES, stage)) return undefined;
  return { stage: stage as QueueName, bullJobId: holder.slice(colon + 1) };
}

async function holderIsLive(entry: ExpiredLease, queues: Record<QueueName, Queue>): Promise<boolean> {
  const holder = holderStage(entry.holder);
  if (!holder) return false;
  const job = await queues[holder.stage].getJob(holder.bullJobId);
  return job !== undefined && LIVE_STATES.has(await job.getState());
}

async function documentIsLive(jobId: string, series: number, queues: Record<QueueName, Queue>): Promise<boolean> {
  for (const [stage, part] of DOCUMENT_JOBS) {
    const job = await queues[stage].getJob(stageJobId(jobId, stage, series, part));
    if (job && LIVE_STATES.has(await job.getState())) return true;
  }
  return false;
}
