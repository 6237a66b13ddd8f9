import { convertPayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * convert: an upload LibreOffice reads (PPT, RTF, ODT, ODP, a DOC word-extractor could not read) → a PDF in the blob store, then the document's extract job on that PDF.
 *
 * - concurrency 1 per consumer, fixed (CONVERT_CONCURRENCY accepts only 1): each consumer process
 *   has one private LibreOffice profile (`-env:UserInstallation=file:///tmp/readpack-lo-<pid>`),
 *   and two soffice processes on one profile block each other; scale with CONVERT_CONSUMERS.
 * - attempts 2, backoff 5 s: a transient failure (disk, a soffice that crashed) gets one more
 *   try; a file LibreOffice cannot load (`conversion_failed`) or that runs past CONVERT_TIMEOUT_MS
 *   (`conversion_timeout`, the process group is killed) fails at once, since converting again
 *   gives the same answer.
 * - lockDuration 60 s (renewed every 7.5–15 s, see bullWorkerLeaseOptions): soffice is a child process, so the event loop that
 *   renews the lock is free during a conversion; 60 s only matters when the consumer dies, and
 *   gives a restarted consumer time to pass LibreOffice's first-start profile creation (~3 s).
 * - stalledInterval 30 s: worst-case takeover after a SIGKILL = 60 s + 2 × 30 s = 2 minutes,
 *   about one default conversion timeout (CONVERT_TIMEOUT_MS = 120 s).
 * - maxStalledCount 1, maxStartedAttempts 3: a document that kills its consumer twice (a
 *   LibreOffice crash taking the process down) is poison and fails, rather than looping.
 * - retention as extract: completed for an hour, failed for a week.
 */
export const convertQueue = {
  name: 'convert',
  payload: convertPayload,
  jobOptions: {
    attempts: 2,
    backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  worker: { lockDuration: 60_000, stalledInterval: 30_000, maxStalledCount: 1, maxStartedAttempts: 3 },
} as const satisfies QueueDefinition<typeof convertPayload>;
