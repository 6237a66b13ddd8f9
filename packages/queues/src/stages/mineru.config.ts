import { mineruPayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * mineru: one document through MinerU's task API (submit → poll → result), as a child of the
 * document's assemble job.
 *
 * - attempts 6, exponential backoff from 5 s with jitter (MINERU_RETRY_DELAY_MS overrides the 5 s):
 *   5xx, timeouts and an unreachable server are retried for ≈ 2.5 min in all before the document
 *   is given up as `mineru_unavailable`; a 400 fails at once. 429/503 are NOT attempts: the whole
 *   queue is rate-limited instead (BullMQ RateLimitError).
 * - lockDuration 10 s, stalledInterval 4 s: the work is waiting on HTTP, the event loop stays free
 *   and renews the lock every 1.25–2.5 s; a dead consumer's job is taken over within lock + 2 × stall
 *   interval = 18 s and RESUMES the same MinerU task (its id is in the job record), so MinerU never
 *   parses a document twice because of us.
 * - global concurrency (MINERU_MAX_CONCURRENCY, default 2) and a global rate limit
 *   (MINERU_RATE_MAX per MINERU_RATE_WINDOW_MS) hold across every consumer process: MinerU runs few
 *   tasks at once (3 by default) and queues the rest in memory, where a restart loses them.
 */
export const mineruQueue = {
  name: 'mineru',
  payload: mineruPayload,
  jobOptions: {
    attempts: 6,
    backoff: { type: 'exponential', delay: 5_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  // maxStartedAttempts 0 (off): BullMQ counts every rate-limited restart as a start, so a start cap
  // would turn a long 429 period into a failure; the poison bound here is maxStalledCount alone.
  worker: { lockDuration: 10_000, stalledInterval: 4_000, maxStalledCount: 2, maxStartedAttempts: 0 },
} as const satisfies QueueDefinition<typeof mineruPayload>;
