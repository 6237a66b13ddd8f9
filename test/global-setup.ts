import { ThrowawayRedis } from '@readpack/testing';

/**
 * The suite talks to a real Redis. Without REDIS_URL it starts a throwaway `redis-server` on a
 * free port (no persistence) and stops it in global-teardown.ts. Every test still uses its own
 * key prefix and queue names, so an external REDIS_URL is never cleared wholesale.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const redis = await ThrowawayRedis.start();
  process.env.REDIS_URL = redis.url;
  (globalThis as Record<string, unknown>).__readpackTestRedis = redis;
}
