import { randomBytes } from 'node:crypto';
import { connectRedis, deploymentKeyPrefix, parseRedisUrl, scanKeys, unlinkKeys, type RedisClient } from '@readpack/redis';

/** Set by test/global-setup.ts (a throwaway server) or by the caller's environment. */
export function testRedisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set: run the suite through `npm test` (test/global-setup.ts starts Redis)');
  return url;
}

/** A name no other test uses: for key prefixes and queue prefixes. BullMQ forbids `:` in queue names only. */
export function uniqueName(label: string): string {
  return `t${label.replace(/[^a-z0-9]/gi, '')}${randomBytes(5).toString('hex')}`;
}

/** A connection to the test Redis, whichever kind REDIS_URL names (the scale tests run some files against a Cluster). */
export function connectTestRedis(): RedisClient {
  return connectRedis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: false });
}

/**
 * A key prefix of a test's own, as a deployment on the test Redis would use it: a hash tag on a
 * Cluster, where a script's keys must share one slot (docs/redis-keys.md).
 */
export function uniqueKeyPrefix(label: string): string {
  return deploymentKeyPrefix(parseRedisUrl(testRedisUrl()).kind, uniqueName(label));
}

/**
 * Removes every key under `prefix` (SCAN, never KEYS or FLUSHDB: other tests share the server).
 * On a Cluster every primary is scanned.
 */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(redis, `${prefix}*`, 500)) deleted += await unlinkKeys(redis, keys);
  return deleted;
}
