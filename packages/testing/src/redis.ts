import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

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

export function connectTestRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Removes every key under `prefix` (SCAN, never KEYS or FLUSHDB: other tests share the server). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
