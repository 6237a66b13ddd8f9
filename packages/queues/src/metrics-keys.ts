/*
 * Where consumers leave their metrics for the API's /metrics to read. Each consumer process
 * writes its whole prom-client registry as JSON under its own key (with a TTL) and scores its key
 * in one index; the API reads the live keys and sums them with prom-client's aggregator. One
 * scrape of any API instance then sees the whole fleet, however many hosts or replicas it has.
 */

/** How often a consumer writes its snapshot. */
export const CONSUMER_METRICS_PUSH_MS = 2_000;
/** A snapshot not refreshed for this long belongs to a consumer that is gone. */
export const CONSUMER_METRICS_TTL_MS = 60_000;

/** Sorted set: member = a consumer's snapshot key, score = when it last wrote (ms). */
export function consumerMetricsIndexKey(prefix: string): string {
  return `${prefix}:metrics:consumers`;
}

export function consumerMetricsKey(prefix: string, stage: string, identity: string): string {
  return `${prefix}:metrics:consumer:${stage}:${identity}`;
}

/** The stage a snapshot key belongs to (identities hold `:`, stages do not). */
export function stageOfConsumerMetricsKey(prefix: string, key: string): string {
  const rest = key.slice(`${prefix}:metrics:consumer:`.length);
  return rest.slice(0, rest.indexOf(':'));
}
