import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, type RedisTarget } from './url.js';

export { surviveRedisOutageRejections } from './outage-rejections.js';
export { parseRedisUrl, deploymentKeyPrefix, RedisUrlError, type RedisTarget, type RedisKind, type RedisEndpoint, type RedisCredentials } from './url.js';

/** A connection to any of the three deployments REDIS_URL names: one server, a Cluster, or a Sentinel group. */
export type RedisClient = Redis | Cluster;

/**
 * Two connection profiles, because producers and consumers must react to an outage oppositely.
 *
 * - Producer (API): fail fast. No offline queue, one try, a short command timeout: a status
 *   request during an outage must answer 503 at once, not hang and never 404.
 * - Consumer (workers, BullMQ): wait. `maxRetriesPerRequest: null` is what BullMQ requires for
 *   blocking commands; commands queue while disconnected and the connection retries forever with
 *   capped backoff, so workers resume by themselves when Redis returns.
 *
 * Both profiles apply to every kind of REDIS_URL: for a Cluster they become the options of each
 * node connection plus the Cluster's own queueing and retry settings; for Sentinel ioredis asks
 * the sentinels for the current primary and reconnects to the new one after a failover.
 *
 * ioredis 5.x speaks RESP2, which is what BullMQ is developed and tested against.
 */
export interface RedisSettings {
  url: string;
  commandTimeoutMs: number;
  /** Producer connections pipeline concurrent commands automatically unless this is false. */
  autoPipelining?: boolean;
}

const reconnectBackoff = (times: number) => Math.min(50 * 2 ** Math.min(times, 10), 2_000);

/**
 * How long a consumer keeps retrying a command through a Cluster failover: CLUSTERDOWN and
 * MOVED/TRYAGAIN replies are retried every `retryDelayOnClusterDown` ms up to `maxRedirections`
 * times. 100 × 300 ms rides out a node timeout of a few seconds plus the replica's election.
 */
const CONSUMER_CLUSTER_RETRY = { retryDelayOnClusterDown: 300, retryDelayOnFailover: 300, retryDelayOnTryAgain: 300, maxRedirections: 100 } as const;

export function createProducerConnection(settings: RedisSettings, name = 'readpack-producer'): RedisClient {
  const options: RedisOptions = {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(settings.commandTimeoutMs, 2_000),
    // Concurrent status requests share round trips: measured 20 → 5 µs of Redis CPU per request.
    enableAutoPipelining: settings.autoPipelining ?? true,
    retryStrategy: reconnectBackoff,
  };
  return connect(parseRedisUrl(settings.url), options, {
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    clusterRetryStrategy: reconnectBackoff,
    slotsRefreshTimeout: Math.max(settings.commandTimeoutMs, 1_000),
  });
}

export function createConsumerConnection(settings: Pick<RedisSettings, 'url'>, name = 'readpack-consumer'): RedisClient {
  const options: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: reconnectBackoff,
  };
  return connect(parseRedisUrl(settings.url), options, {
    enableOfflineQueue: true,
    clusterRetryStrategy: reconnectBackoff,
    ...CONSUMER_CLUSTER_RETRY,
    // ioredis' Cluster#connect() never settles when its ready check (CLUSTER INFO) finds
    // `cluster_state:fail`, as every node reports mid-failover: the check disconnects and a later
    // connect() reaches `ready`, but the first promise is orphaned. BullMQ's blocking connection
    // awaits exactly that promise when its watchdog resets the connection (reconnectBlocking), so a
    // worker whose watchdog fired during a failover never took another job. Without the check the
    // promise settles as soon as the slots are known; CLUSTERDOWN replies in the meantime are
    // retried (CONSUMER_CLUSTER_RETRY). docs/redis-keys.md, "A whole pipeline through a failover".
    enableReadyCheck: false,
  });
}

/**
 * A connection with the caller's own node options (tests, benches, operator tools that want
 * neither profile), for any kind of REDIS_URL.
 */
export function connectRedis(url: string, options: RedisOptions = {}, clusterOptions: ClusterOptions = {}): RedisClient {
  return connect(parseRedisUrl(url), options, clusterOptions);
}

function connect(target: RedisTarget, options: RedisOptions, clusterOptions: ClusterOptions): RedisClient {
  switch (target.kind) {
    case 'standalone':
      return new Redis(target.url, options);
    case 'cluster':
      return new Cluster(target.nodes, {
        ...clusterOptions,
        // Every key of a deployment lives in one slot (docs/redis-keys.md): reads go to its primary,
        // so a status read never sees a replica that lags behind the write it follows.
        scaleReads: 'master',
        redisOptions: { ...options, username: target.username, password: target.password },
      });
    case 'sentinel':
      return new Redis({
        ...options,
        sentinels: target.sentinels,
        name: target.name,
        db: target.db,
        username: target.username,
        password: target.password,
        sentinelPassword: target.sentinelPassword,
        sentinelRetryStrategy: reconnectBackoff,
      });
  }
}

/**
 * Keys matching `match`, a page at a time (SCAN: never blocks Redis). On a Cluster SCAN sees only
 * the node it is sent to, so every primary is scanned in turn.
 */
export async function* scanKeys(redis: RedisClient, match: string, count: number): AsyncGenerator<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * UNLINKs keys that may lie in different slots: one multi-key UNLINK on a standalone server, one
 * command per key on a Cluster (a multi-key command across slots is refused there with CROSSSLOT).
 */
export async function unlinkKeys(redis: RedisClient, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!(redis instanceof Cluster)) return redis.unlink(...keys);
  const counts = await Promise.all(keys.map((key) => redis.unlink(key)));
  return counts.reduce((sum, n) => sum + n, 0);
}

/**
 * True when an error means "the store could not be asked" (down, unreachable, too slow) rather
 * than a bug or a Redis-side error reply. The API turns these into 503 with Retry-After.
 */
export function isRedisUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const text = `${error.name} ${error.message}`;
  return /Stream isn't writeable|enableOfflineQueue|Connection is closed|Command timed out|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|MaxRetriesPerRequestError|Reached the max retries|ClusterAllFailedError|Too many Cluster redirections|LOADING|CLUSTERDOWN|MASTERDOWN|TRYAGAIN/i.test(
    text,
  );
}

/** Resolves once the connection is ready (or rejects after `timeoutMs`). */
export async function waitUntilReady(redis: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms (status ${redis.status})`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
