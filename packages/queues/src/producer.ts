import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix, QUEUES, stageJobId, type PayloadOf, type QueueName } from './catalogue.js';

/**
 * The producer side of the catalogue: typed, validated `add`. Holds Queue objects only (never a
 * Worker), so the API can import it without pulling in consumer code.
 */
export class QueueProducer {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
  ) {}

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(QUEUES[name].name, { connection: this.connection, prefix: bullPrefix(this.prefix) });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Adds the stage job for `payload.jobId`. The payload is validated here and again by the consumer. */
  async add<N extends QueueName>(name: N, payload: PayloadOf<N>): Promise<void> {
    await this.addUntyped(name, payload);
  }

  /** For data whose type is only known at run time (a dead-letter replay): validated by the queue's schema. */
  async addUntyped(name: QueueName, payload: unknown): Promise<void> {
    const definition = QUEUES[name];
    const data = definition.payload.parse(payload);
    await this.queue(name).add(name, data, { ...definition.jobOptions, jobId: stageJobId(data.jobId, name, data.series) });
  }

  all(): Queue[] {
    return (Object.keys(QUEUES) as QueueName[]).map((name) => this.queue(name));
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
