import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from '@readpack/redis';
import { z } from 'zod';
import { bullPrefix } from './catalogue.js';

/**
 * webhook: one delivery of a terminal job event to the callback URL its upload named (or its
 * tenant's default). Not a pipeline stage: it never touches the job record, which is final by the
 * time a delivery exists. docs/webhooks.md describes what a receiver gets.
 *
 * - attempts WEBHOOK_ATTEMPTS (8), exponential backoff from WEBHOOK_BACKOFF_MS (5 s): 5, 10, 20,
 *   40 s … ≈ 10.6 min in all, long enough to ride out a receiver's deploy or restart, short enough that an event is
 *   not days late. Any answer but 2xx, a timeout, or a refused target spends an attempt.
 * - A delivery that used its attempts is dead-lettered (`webhook-dlq`), where Bull Board's Retry
 *   or `readpack ops dlq replay webhook <jobId>` delivers it again with the same body and
 *   idempotency key.
 * - The BullMQ job id is the idempotency key, `<jobId>-s<series>-<status>`: every path that ends a
 *   job may enqueue it (and a redelivered stage job does again) and there is still one delivery.
 * - lockDuration 30 s covers the request timeout (≤ 10 s) three times over.
 */
export const WEBHOOK_QUEUE = 'webhook';
export const WEBHOOK_DLQ = 'webhook-dlq';
/** Default of WEBHOOK_ATTEMPTS. */
export const WEBHOOK_ATTEMPTS = 8;

export const webhookPayload = z.object({
  jobId: z.string(),
  tenant: z.string(),
  url: z.string().url(),
  /** The idempotency key (Readpack-Idempotency-Key), also the event's `id`. */
  deliveryId: z.string(),
  /** The exact JSON body: every attempt (and a replay) sends the same bytes. */
  body: z.string(),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;

/** A dead-lettered delivery: the payload and why it gave up. */
export interface WebhookDeadLetter {
  delivery: WebhookPayload;
  error: string;
  attemptsMade: number;
  failedAt: string;
}

export function webhookJobOptions(settings: { attempts: number; backoffMs: number }): JobsOptions {
  const { attempts, backoffMs } = settings;
  return {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs },
    removeOnComplete: { age: 7 * 86_400, count: 10_000 },
    removeOnFail: { age: 7 * 86_400, count: 10_000 },
  };
}

export const WEBHOOK_WORKER = { lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 2 } as const;

export function webhookDeliveryId(jobId: string, series: number, status: string): string {
  return `${jobId}-s${series}-${status}`;
}

/** What a terminal job looks like to the webhook layer (JobStateStore.terminalNotice). */
export interface TerminalNotice {
  jobId: string;
  tenant: string;
  series: number;
  status: string;
  callbackUrl: string | undefined;
  /** The job's status document (JobView JSON) at the end. */
  view: string;
}

/** Adds deliveries; one per process that ends jobs (API, consumers). */
export class WebhookEnqueuer {
  private readonly queue: Queue;

  constructor(
    connection: RedisClient,
    prefix: string,
    private readonly settings: { attempts: number; backoffMs: number },
    onError: (error: Error) => void,
  ) {
    this.queue = new Queue(WEBHOOK_QUEUE, { connection, prefix: bullPrefix(prefix) });
    this.queue.on('error', onError);
  }

  /** Enqueues the delivery of a terminal job's event, when the job has a callback URL. Idempotent. */
  async notify(notice: TerminalNotice): Promise<void> {
    if (!notice.callbackUrl || (notice.status !== 'done' && notice.status !== 'failed')) return;
    const deliveryId = webhookDeliveryId(notice.jobId, notice.series, notice.status);
    const body = JSON.stringify({ id: deliveryId, type: `job.${notice.status}`, createdAt: new Date().toISOString(), data: JSON.parse(notice.view) as unknown });
    const payload: WebhookPayload = { jobId: notice.jobId, tenant: notice.tenant, url: notice.callbackUrl, deliveryId, body };
    await this.queue.add('deliver', payload, { ...webhookJobOptions(this.settings), jobId: deliveryId });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
