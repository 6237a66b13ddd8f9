import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config } from '@readpack/config';
import { PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import { bullPrefix, WEBHOOK_DLQ, WEBHOOK_QUEUE, WEBHOOK_WORKER, WebhookAllowList, webhookJobOptions, webhookPayload, type WebhookDeadLetter, type WebhookPayload } from '@readpack/queues';
import { createConsumerConnection } from '@readpack/redis';
import { DEAD_LETTER_RETENTION } from '../dead-letters.js';
import { deliver } from './delivery.js';

export interface RunningWebhookConsumer {
  worker: Worker;
  close(graceMs?: number): Promise<void>;
}

/**
 * The webhook delivery consumer (`node apps/worker/dist/main.js webhook`): takes deliveries from
 * the `webhook` queue (packages/queues/src/webhook.config.ts), signs and POSTs them, and lets
 * BullMQ retry with exponential backoff. A delivery that used its attempts goes to `webhook-dlq`,
 * parked like the stages' dead letters; an operator's retry there (Bull Board, `readpack ops dlq
 * replay webhook <jobId>`) delivers it again, same body, same idempotency key.
 */
export async function startWebhookConsumer(config: Config, logger: Logger): Promise<RunningWebhookConsumer> {
  const connection = createConsumerConnection({ url: config.redis.url }, `readpack-webhook:${PROCESS_IDENTITY}`);
  connection.on('error', (error: Error) => logger.warn('redis connection error', { stage: 'webhook', error: error.message }));
  const prefix = bullPrefix(config.redis.prefix);
  const allow = new WebhookAllowList(config.webhooks.allow);
  const deadLetters = new Queue(WEBHOOK_DLQ, { connection, prefix });
  const deliveries = new Queue(WEBHOOK_QUEUE, { connection, prefix });
  for (const queue of [deadLetters, deliveries]) queue.on('error', (error) => logger.warn('webhook queue error', { error: error.message }));

  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job: Job) => {
      const delivery = webhookPayload.parse(job.data);
      const log = logger.child({ jobId: delivery.jobId, stage: 'webhook', deliveryId: delivery.deliveryId, attempt: job.attemptsMade + 1 });
      const secret = config.webhooks.secrets[delivery.tenant];
      try {
        if (secret === undefined) throw new UnrecoverableError(`tenant ${delivery.tenant} has no webhook secret (WEBHOOK_SECRETS)`);
        const status = await deliver({ url: delivery.url, body: delivery.body, deliveryId: delivery.deliveryId, secret }, allow, config.webhooks.timeoutMs);
        log.info('webhook delivered', { status, host: new URL(delivery.url).host });
        return { status };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const final = error instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? config.webhooks.attempts);
        if (!final) {
          log.warn('webhook delivery failed; will retry', { error: message });
          throw error;
        }
        log.error('webhook delivery gave up; dead-lettered', { error: message });
        const entry: WebhookDeadLetter = { delivery, error: message, attemptsMade: job.attemptsMade + 1, failedAt: new Date().toISOString() };
        // The entry's id is the delivery's: a repeated final failure keeps one entry.
        await deadLetters.add('dead-letter', entry, { jobId: delivery.deliveryId, ...DEAD_LETTER_RETENTION });
        throw new UnrecoverableError(message);
      }
    },
    { connection, prefix, concurrency: 8, ...WEBHOOK_WORKER },
  );
  worker.on('error', (error) => logger.error('webhook worker error', { error: error.message }));

  // Parks new dead letters (fails them on purpose, so they show in Bull Board with their error);
  // an operator's retry of a parked one enqueues the delivery anew, under a fresh BullMQ id (the
  // failed original is still retained under the delivery id) and the same idempotency key.
  const deadLetterWorker = new Worker(
    WEBHOOK_DLQ,
    async (job: Job<WebhookDeadLetter>) => {
      if (job.attemptsMade === 0) throw new UnrecoverableError(job.data.error);
      const delivery: WebhookPayload = webhookPayload.parse(job.data.delivery);
      await deliveries.add('deliver', delivery, { ...webhookJobOptions(config.webhooks), jobId: `${delivery.deliveryId}-replay-${Date.now()}` });
      logger.info('webhook replayed from the dead-letter queue', { jobId: delivery.jobId, deliveryId: delivery.deliveryId });
    },
    { connection, prefix, concurrency: 1 },
  );
  deadLetterWorker.on('error', (error) => logger.error('webhook dead-letter worker error', { error: error.message }));
  logger.info('consumer started', { stage: 'webhook' });

  return {
    worker,
    async close(graceMs = config.shutdownGraceMs) {
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<'forced'>((r) => (timer = setTimeout(() => r('forced'), graceMs)));
      const outcome = await Promise.race([worker.close().then(() => 'closed' as const), forced]);
      clearTimeout(timer);
      if (outcome === 'forced') await worker.close(true);
      await deadLetterWorker.close();
      await Promise.all([deadLetters.close(), deliveries.close()]);
      connection.disconnect();
    },
  };
}
