import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import type { Config } from '@readpack/config';
import { JobStateStore } from '@readpack/job-state';
import { openStorage, SCHEMA_VERSION, type Storage } from '@readpack/package-store';
import { connectTestRedis, deleteKeysWithPrefix } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { cleanExpired } from '../../apps/worker/src/maintenance/janitor.js';
import { testConfig } from '../harness.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3rver.js';

/**
 * Lifecycle on S3: the janitor deletes expired packages and unreferenced blobs through the S3 API
 * (list, head, delete), exactly as on disk; no bucket expiry rule is involved. Objects cannot be
 * back-dated, so the janitor runs "two hours later" instead.
 */
let s3: LoopbackS3;
let config: Config;
let redis: RedisClient;
let state: JobStateStore;
let storage: Storage;

beforeAll(async () => {
  s3 = await startLoopbackS3();
  config = await testConfig(s3.env);
  redis = connectTestRedis();
  state = new JobStateStore(redis, { prefix: config.redis.prefix, ttl: { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 }, leaseMs: 1, actor: 'test:1' });
  storage = await openStorage(config.dataDir, config.storage.s3);
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, config.redis.prefix);
  await redis.quit();
  await s3.stop();
  await rm(config.dataDir, { recursive: true, force: true });
});

describe('janitor on S3', () => {
  it('removes packages whose record expired and blobs nothing references, keeps the rest', async () => {
    const source = { filename: 'a.txt', mediaType: 'text/plain', size: 1, sha256: 'b'.repeat(64) };
    const kept = await storage.blobs.putBuffer(Buffer.from('asset of a live package'));
    const gone = await storage.blobs.putBuffer(Buffer.from('asset of an expired package'));
    const base = { schemaVersion: SCHEMA_VERSION as typeof SCHEMA_VERSION, tenant: 't', origin: { parser: 'x', version: '1', engine: 'native' as const }, text: '', markdown: '', body: [], furniture: [], tables: [] };
    await state.createJob({ jobId: 'job_lives3package00001', tenant: 't', source });
    await storage.packages.write({ ...base, packageId: 'job_lives3package00001', jobId: 'job_lives3package00001', source, assets: [{ sha256: kept.sha256, mediaType: 'text/plain', size: 1, role: 'embedded-image' }] });
    await storage.packages.write({ ...base, packageId: 'job_deads3package00001', jobId: 'job_deads3package00001', source, assets: [{ sha256: gone.sha256, mediaType: 'text/plain', size: 1, role: 'embedded-image' }] });

    const policy = { blobGraceMs: 3_600_000, spoolGraceMs: 3_600_000, packageGraceMs: 3_600_000 };
    const now = await cleanExpired(state, storage, policy);
    expect(now).toMatchObject({ packagesRemoved: 0, blobsRemoved: 0, problems: [] });

    const later = await cleanExpired(state, storage, policy, Date.now() + 7_200_000);
    expect(later).toMatchObject({ packagesRemoved: 1, blobsRemoved: 1, problems: [] });
    expect(await storage.packages.read('job_deads3package00001')).toBeNull();
    expect(await storage.packages.readIndex('job_deads3package00001')).toBeNull();
    expect(await storage.packages.read('job_lives3package00001')).not.toBeNull();
    expect(await storage.blobs.has(gone.sha256)).toBe(false);
    expect(await storage.blobs.has(kept.sha256)).toBe(true);
  });
});
