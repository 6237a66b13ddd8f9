import type { ThrowawayRedisCluster } from '@readpack/testing';

export default async function globalTeardown(): Promise<void> {
  await ((globalThis as Record<string, unknown>).__readpackTestCluster as ThrowawayRedisCluster | undefined)?.dispose();
}
