import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl, uniqueName } from '@readpack/testing';
import { startApiProcesses, type ApiProcess } from './support/api-processes.js';
import { errorCode, TenantClient } from './support/client.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

const PROCESSES = 4;
const KEYS = { alice: 'alice-key-limits-0123456789', bob: 'bob-key-limits-0123456789ab', carol: 'carol-key-limits-0123456789' };

/**
 * Per-tenant limits under four separate API processes sharing one Redis: whatever each process
 * counted alone would let `limit × 4` through; only a count in Redis holds the total at `limit`.
 * No consumers run, so every admitted job stays active.
 */
async function fleet(vars: Record<string, string>): Promise<{ apis: ApiProcess[]; stop: () => Promise<void> }> {
  const prefix = uniqueName('lim');
  const dataDir = await mkdtemp(join(tmpdir(), 'readpack-limits-'));
  const apis = await startApiProcesses(PROCESSES, {
    REDIS_URL: testRedisUrl(),
    READPACK_PREFIX: prefix,
    DATA_DIR: dataDir,
    API_KEYS: `${KEYS.alice}:alice,${KEYS.bob}:bob,${KEYS.carol}:carol`,
    ...vars,
  });
  return {
    apis,
    async stop() {
      await Promise.all(apis.map((a) => a.process.stop()));
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, prefix);
      await redis.quit();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** `count` uploads of distinct content, spread round-robin over the processes, all at once. */
async function flood(apis: ApiProcess[], key: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const api = apis[i % apis.length]!;
      const res = await new TenantClient(api.url, key).upload({ name: `doc-${i}.txt`, data: Buffer.from(`document ${i} ${key}`) });
      return { res, servedBy: res.headers.get('x-served-by'), code: res.status === 202 ? 'accepted' : await errorCode(res) };
    }),
  );
}

describe('upload rate per tenant across 4 API processes', () => {
  const LIMIT = 12;
  let running: Awaited<ReturnType<typeof fleet>>;
  beforeAll(async () => {
    running = await fleet({ UPLOAD_RATE_PER_MINUTE: String(LIMIT) });
  }, 60_000);
  afterAll(async () => running?.stop());

  it(`accepts exactly ${LIMIT} of 48 concurrent uploads in total, not ${LIMIT} per process`, async () => {
    const results = await flood(running.apis, KEYS.alice, 48);
    expect(new Set(results.map((r) => r.servedBy)).size).toBe(PROCESSES);
    expect(results.filter((r) => r.res.status === 202)).toHaveLength(LIMIT);
    const refused = results.filter((r) => r.res.status !== 202);
    expect(refused).toHaveLength(48 - LIMIT);
    for (const r of refused) {
      expect(r.res.status).toBe(429);
      expect(r.code).toBe('rate_limited');
      const retryAfter = Number(r.res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it("one tenant's flood leaves another tenant's budget whole", async () => {
    const results = await flood(running.apis, KEYS.bob, LIMIT);
    expect(results.map((r) => r.code)).toEqual(Array(LIMIT).fill('accepted'));
  });

  it('counts every file of a batch, not the request', async () => {
    const carol = new TenantClient(running.apis[2]!.url, KEYS.carol);
    const files = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ name: `${tag}${i}.txt`, data: Buffer.from(`${tag} ${i}`) }));
    expect((await carol.uploadBatch(files(LIMIT - 2, 'first'))).status).toBe(202);
    // Three more files would make LIMIT + 1: the request itself passed the first check, its files did not.
    const over = await carol.uploadBatch(files(3, 'second'));
    expect(over.status).toBe(429);
    expect(await errorCode(over)).toBe('rate_limited');
  });
});

describe('active jobs per tenant across 4 API processes', () => {
  const LIMIT = 7;
  let running: Awaited<ReturnType<typeof fleet>>;
  beforeAll(async () => {
    running = await fleet({ MAX_ACTIVE_JOBS_PER_TENANT: String(LIMIT), UPLOAD_RATE_PER_MINUTE: '10000' });
  }, 60_000);
  afterAll(async () => running?.stop());

  it(`admits exactly ${LIMIT} of 40 concurrent uploads and answers the rest 429 with Retry-After`, async () => {
    const results = await flood(running.apis, KEYS.alice, 40);
    expect(new Set(results.map((r) => r.servedBy)).size).toBe(PROCESSES);
    expect(results.filter((r) => r.code === 'accepted')).toHaveLength(LIMIT);
    for (const r of results.filter((x) => x.code !== 'accepted')) {
      expect(r.res.status).toBe(429);
      expect(r.code).toBe('too_many_active_jobs');
      expect(Number(r.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('refuses a batch that would cross the limit whole, and leaves the other tenant alone', async () => {
    const bob = new TenantClient(running.apis[1]!.url, KEYS.bob);
    const files = Array.from({ length: LIMIT + 1 }, (_, i) => ({ name: `b${i}.txt`, data: Buffer.from(`bob ${i}`) }));
    const tooMany = await bob.uploadBatch(files);
    expect(tooMany.status).toBe(429);
    expect(await errorCode(tooMany)).toBe('too_many_active_jobs');
    const fits = await bob.uploadBatch(files.slice(0, LIMIT));
    expect(fits.status).toBe(202);
  });
});
