import { ocrPayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * ocr: one rendered page → text, confidence, line and word boxes (tesseract.js, offline).
 *
 * - attempts 3, exponential backoff from 1 s: a crashed tesseract worker is replaced and the page
 *   tried again; missing or damaged language data fails at once (`ocr_language_data_missing`,
 *   `ocr_language_data_invalid`).
 * - lockDuration 10 s, stalledInterval 4 s: tesseract runs in its own worker threads, so the event
 *   loop that renews the lock (every 1.25–2.5 s) stays free however long a page takes (a 90-second page is
 *   never taken over while its consumer lives: test/durability/long-page.test.ts); the lock only
 *   matters when the process dies (takeover ≤ lock + 2 × stall interval = 18 s).
 * - maxStalledCount 2, maxStartedAttempts 5, retention as for render.
 * - concurrency per process = OCR_CONCURRENCY (default: the cores), one tesseract.js worker per
 *   page in hand (≈110 MB each); all but OCR_WARM_WORKERS stop after OCR_WORKER_IDLE_MS idle.
 */
export const ocrQueue = {
  name: 'ocr',
  payload: ocrPayload,
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 5_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  worker: { lockDuration: 10_000, stalledInterval: 4_000, maxStalledCount: 2, maxStartedAttempts: 5 },
} as const satisfies QueueDefinition<typeof ocrPayload>;
