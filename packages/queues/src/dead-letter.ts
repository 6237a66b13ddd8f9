import type { QueueName } from './catalogue.js';

/**
 * An entry of a stage's dead-letter queue (`<stage>-dlq`): what the worker parks there and what
 * operators list and replay (Bull Board, `readpack ops dlq`). Defined here, beside the queues, so
 * the consumer that writes it and the CLI that reads it share one shape.
 */
export interface DeadLetter {
  stage: QueueName;
  bullJobId: string;
  payload: Record<string, unknown>;
  error: { code: string; message: string };
  attemptsMade: number;
  attemptsStarted: number;
  firstQueuedAt: string;
  failedAt: string;
  stacktrace: string[];
  /** The job's queue priority (its tenant's fairness rank), kept for the replay. */
  priority?: number;
}
