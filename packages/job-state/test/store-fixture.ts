import { afterAll, beforeAll } from '@jest/globals';
import type { RedisClient } from '@readpack/redis';
import { connectTestRedis, deleteKeysWithPrefix, uniqueKeyPrefix } from '@readpack/testing';
import { JobStateStore, type Lease } from '../src/index.js';

export const TEST_TTL = { queuedSeconds: 600, processingSeconds: 300, resultSeconds: 900 };

/** One consumer's lease (scripts/prelude.lua, Leases), for tests that are not about fencing. */
export const TEST_LEASE: Lease = { series: 1, holder: 'extract:test', epoch: 1, token: 'token-1' };

export interface StoreFixture {
  redis: RedisClient;
  prefix: string;
  store: JobStateStore;
}

/**
 * A JobStateStore on the test Redis under a key prefix of its own (tests run in parallel), set up
 * before the file's tests and removed, keys and connection, after them. Read its fields inside tests.
 */
export function useStoreFixture(name: string, actor = 'test-host:1'): StoreFixture {
  const fixture = {} as StoreFixture;
  beforeAll(() => {
    fixture.redis = connectTestRedis();
    fixture.prefix = uniqueKeyPrefix(name);
    fixture.store = new JobStateStore(fixture.redis, { prefix: fixture.prefix, ttl: TEST_TTL, leaseMs: 5_000, actor });
  });
  afterAll(async () => {
    await deleteKeysWithPrefix(fixture.redis, fixture.prefix);
    await fixture.redis.quit();
  });
  return fixture;
}
