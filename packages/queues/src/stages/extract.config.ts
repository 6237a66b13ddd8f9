import { extractPayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * extract: sniffed document → per-part text, tables and embedded images.
 *
 * - attempts 3, exponential backoff from 2 s with jitter: a transient failure (disk, Redis blip,
 *   a killed parser thread) gets two more tries spread over ~6 s; a broken document fails at
 *   once instead (UnrecoverableError), so attempts are not wasted on it.
 * - lockDuration 10 s (renewed by BullMQ's lock extender every 1.25–2.5 s: bullWorkerLeaseOptions): parsing runs in a worker
 *   thread, so the event loop that renews the lock stays free however long a parse takes; the
 *   lock only bounds how long a dead consumer holds the job.
 * - stalledInterval 4 s, well under the lock: worst-case takeover after a SIGKILL = lockDuration +
 *   2 × stalledInterval = 18 s (BullMQ's stall-check guard can make one check skip a tick; p50/p99
 *   measured by `npm run bench:durability`, docs/benchmarks.md).
 * - maxStalledCount 2: a document that kills its process three times is failed (poison), not looped;
 *   maxStartedAttempts 5 (attempts + stalls) bounds it a second way.
 * - retention: completed jobs for an hour (Bull Board visibility), failed ones for a week.
 */
export const extractQueue = {
  name: 'extract',
  payload: extractPayload,
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  worker: { lockDuration: 10_000, stalledInterval: 4_000, maxStalledCount: 2, maxStartedAttempts: 5 },
} as const satisfies QueueDefinition<typeof extractPayload>;
