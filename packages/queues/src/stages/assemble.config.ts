import { assemblePayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * assemble: parts → reading package (assets, then manifest) → job `done`.
 *
 * - attempts 5, exponential backoff from 1 s: the work is small disk I/O and idempotent (same
 *   bytes on re-run), so retrying generously is safe and cheap.
 * - lockDuration 10 s, stalledInterval 4 s: an assemble takes milliseconds; these only bound
 *   the takeover after a crash (lock + 2 × stall interval = 18 s worst case).
 * - maxStalledCount 2, maxStartedAttempts 7, retention as for extract.
 */
export const assembleQueue = {
  name: 'assemble',
  payload: assemblePayload,
  jobOptions: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  worker: { lockDuration: 10_000, stalledInterval: 4_000, maxStalledCount: 2, maxStartedAttempts: 7 },
} as const satisfies QueueDefinition<typeof assemblePayload>;
