export { QUEUES, PIPELINE_VERSION, bullPrefix, stageJobId, type QueueName, type PayloadOf } from './catalogue.js';
export type { QueueDefinition } from './definition.js';
export { QueueProducer } from './producer.js';
export * from './payloads.js';
