import type { Queue } from 'bullmq';
import type { RedisClient } from '@readpack/redis';
import { AggregatorRegistry, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Logger } from '@readpack/logging';
import { Recent } from './recent.js';
import { CONSUMER_METRICS_TTL_MS, consumerMetricsIndexKey, stageOfConsumerMetricsKey } from '@readpack/queues';

/** A scrape reads Redis at most this often; answers in between are the last reading. */
const FRESH_MS = 1_000;
const STATES = ['waiting', 'prioritized', 'active', 'delayed', 'waiting-children', 'failed', 'completed'] as const;
/** What a dead-letter queue holds: parked entries are `failed` on purpose (dead-letters.ts). */
const DLQ_STATES: readonly string[] = ['waiting', 'prioritized', 'active', 'delayed', 'failed'];

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

/**
 * What the whole fleet reports, read from Redis: queue depths per queue and state (BullMQ's
 * getJobCounts), dead-letter sizes, and the consumers' own metrics (pushed by each consumer,
 * apps/worker/src/metrics.ts), summed with prom-client's aggregator. Read at most once a second
 * and refreshed in the background, so a scrape answers from memory and stays cheap.
 */
export class FleetMetrics {
  private readonly recent: Recent<string>;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly queues: () => Queue[],
    logger: Logger,
  ) {
    this.recent = new Recent(
      async () => {
        const [queueText, consumersText] = await Promise.all([this.queueDepths(), this.consumers()]);
        return queueText + consumersText;
      },
      FRESH_MS,
      (error) => logger.warn('could not read fleet metrics; answering the last reading', { error: String(error) }),
    );
  }

  exposition(): Promise<string> {
    return this.recent.get();
  }

  private async queueDepths(): Promise<string> {
    const registry = new Registry();
    const depth = new Gauge({ name: 'readpack_queue_jobs', help: 'Jobs in each BullMQ queue, by state.', labelNames: ['queue', 'state'], registers: [registry] });
    const dlq = new Gauge({ name: 'readpack_dlq_jobs', help: 'Entries in each stage\'s dead-letter queue.', labelNames: ['queue'], registers: [registry] });
    const queues = this.queues();
    const counts = await Promise.all(queues.map((q) => q.getJobCounts(...STATES)));
    queues.forEach((queue, i) => {
      const count = counts[i]!;
      for (const state of STATES) depth.set({ queue: queue.name, state }, count[state] ?? 0);
      if (queue.name.endsWith('-dlq')) dlq.set({ queue: queue.name }, DLQ_STATES.reduce((sum, s) => sum + (count[s] ?? 0), 0));
    });
    return registry.metrics();
  }

  private async consumers(): Promise<string> {
    const index = consumerMetricsIndexKey(this.prefix);
    const keys = await this.redis.zrangebyscore(index, Date.now() - CONSUMER_METRICS_TTL_MS, '+inf');
    const values = keys.length > 0 ? await this.redis.mget(...keys) : [];
    const snapshots: Snapshot[] = [];
    const perStage = new Map<string, number>();
    values.forEach((value, i) => {
      if (value === null) return; // expired between the two reads
      snapshots.push(JSON.parse(value) as Snapshot);
      const stage = stageOfConsumerMetricsKey(this.prefix, keys[i]!);
      perStage.set(stage, (perStage.get(stage) ?? 0) + 1);
    });
    const registry = new Registry();
    const live = new Gauge({ name: 'readpack_consumers', help: 'Consumer processes that reported in the last minute, by stage.', labelNames: ['stage'], registers: [registry] });
    for (const [stage, n] of perStage) live.set({ stage }, n);
    const summed = snapshots.length > 0 ? await AggregatorRegistry.aggregate(snapshots).metrics() : '';
    return (await registry.metrics()) + summed;
  }
}
