import { renderPayload } from '../payloads.js';
import type { QueueDefinition } from '../definition.js';

/**
 * render: one page → gray pixels for OCR (PGM blob), a page image and a small preview (assets).
 *
 * - attempts 3, exponential backoff from 1 s: a transient failure (disk, a killed render thread)
 *   is retried; a page pdfjs cannot render fails at once (`render_failed`, `page_too_large`) and its
 *   OCR parent records the page's error.
 * - lockDuration 10 s, stalledInterval 4 s: rendering runs in a worker thread, so the lock renews
 *   (every 1.25–2.5 s) even during a slow page; a dead consumer's page is taken over in at most
 *   lock + 2 × stall interval = 18 s.
 * - maxStalledCount 2, maxStartedAttempts 5: a page that keeps killing its process ends failed.
 * - pages are children of their document's flow, so they are removed with it; completed page jobs
 *   are kept briefly (Bull Board).
 */
export const renderQueue = {
  name: 'render',
  payload: renderPayload,
  jobOptions: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 5_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  },
  worker: { lockDuration: 10_000, stalledInterval: 4_000, maxStalledCount: 2, maxStartedAttempts: 5 },
} as const satisfies QueueDefinition<typeof renderPayload>;
