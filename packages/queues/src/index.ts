export {
  QUEUES,
  PIPELINE_VERSION,
  bullPrefix,
  stageJobId,
  RENDITION_PART,
  deadLetterQueueName,
  leaseSettings,
  bullWorkerLeaseOptions,
  type LeaseSettings,
  type QueueName,
  type PayloadOf,
} from './catalogue.js';
export { MAINTENANCE_QUEUE, MAINTENANCE_TASKS, maintenancePayload, maintenanceJobOptions, type MaintenanceTask } from './maintenance.config.js';
export type { QueueDefinition } from './definition.js';
export { QueueProducer, jobOptionOverrides, type FlowChild } from './producer.js';
export * from './payloads.js';
export type { DeadLetter } from './dead-letter.js';
export { CONVERTER_REFRESH_MS, CONVERTER_TTL_SECONDS, converterKey, publishConverter, readConverter, type ConverterInfo } from './converter.js';
export { CONSUMER_METRICS_PUSH_MS, CONSUMER_METRICS_TTL_MS, consumerMetricsIndexKey, consumerMetricsKey, stageOfConsumerMetricsKey } from './metrics-keys.js';
export {
  WEBHOOK_QUEUE,
  WEBHOOK_DLQ,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_WORKER,
  WebhookEnqueuer,
  webhookDeliveryId,
  webhookJobOptions,
  webhookPayload,
  type TerminalNotice,
  type WebhookDeadLetter,
  type WebhookPayload,
} from './webhook.config.js';
export { checkWebhookTarget, guardedLookup, WebhookAllowList, WebhookTargetError } from './webhook-target.js';
