import { ThrowawayRedisCluster } from '@readpack/testing';

/**
 * `npm run test:scale`: the unit tests that run here (packages/job-state) talk to a throwaway
 * Redis Cluster (three primaries, one replica each) instead of one server, so every Lua script
 * runs where undeclared or cross-slot keys are refused. Tests that kill nodes start their own.
 */
export default async function globalSetup(): Promise<void> {
  const cluster = await ThrowawayRedisCluster.start();
  process.env.REDIS_URL = cluster.url;
  (globalThis as Record<string, unknown>).__readpackTestCluster = cluster;
}
