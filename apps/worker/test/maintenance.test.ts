import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { rm, utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import type { Config } from '@readpack/config';
import { JobStateStore } from '@readpack/job-state';
import { createLogger } from '@readpack/logging';
import { openStorage, SCHEMA_VERSION, type LocalBlobStore, type Storage } from '@readpack/package-store';
import { bullPrefix, MAINTENANCE_QUEUE, QUEUES, stageJobId, type QueueName } from '@readpack/queues';
import { connectTestRedis, deleteKeysWithPrefix } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { testConfig } from '../../../test/harness.js';
import { serviceEnv } from '../../../test/support/env.js';
import { builtScript } from '../../../test/support/service-process.js';
import { cleanExpired } from '../src/maintenance/janitor.js';
import { sweepOrphans } from '../src/maintenance/sweeper.js';
import { startConsumer } from '../src/runner.js';

const run = promisify(execFile);
let config: Config;
let redis: RedisClient;
let state: JobStateStore;
let storage: Storage;
let queues: Record<QueueName, Queue>;

beforeAll(async () => {
  config = await testConfig();
  redis = connectTestRedis();
  state = new JobStateStore(redis, { prefix: config.redis.prefix, ttl: { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 }, leaseMs: 1, actor: 'test:1' });
  storage = await openStorage(resolve(config.dataDir));
  queues = Object.fromEntries(
    (Object.keys(QUEUES) as QueueName[]).map((s) => [s, new Queue(s, { connection: redis, prefix: bullPrefix(config.redis.prefix) })]),
  ) as Record<QueueName, Queue>;
});
afterAll(async () => {
  await Promise.all(Object.values(queues).map((q) => q.close()));
  await deleteKeysWithPrefix(redis, config.redis.prefix);
  await redis.quit();
});

const source = { filename: 'a.txt', mediaType: 'text/plain', size: 1, sha256: 'b'.repeat(64) };

describe('sweeper', () => {
  const lease = (holder: string) => ({ series: 1, holder, epoch: 1, token: 'tok' });
  const sweep = () => sweepOrphans(state, queues, { recheckMs: 60_000 });

  it('fails a processing record whose lease lapsed and that no queue holds, and nothing else', async () => {
    await state.createJob({ jobId: 'job_orphan0000000000001', tenant: 't', source });
    await state.start({ jobId: 'job_orphan0000000000001' }, 'extract', lease('extract:job_orphan0000000000001')); // lease of 1 ms: lapses at once
    await state.createJob({ jobId: 'job_alive00000000000001', tenant: 't', source });
    await state.start({ jobId: 'job_alive00000000000001' }, 'extract', lease('extract:job_alive00000000000001'));
    await queues.extract.add('extract', { any: 1 }, { jobId: stageJobId('job_alive00000000000001', 'extract'), delay: 60_000 });
    await state.createJob({ jobId: 'job_fresh00000000000001', tenant: 't', source }); // queued, young: left alone
    await new Promise((r) => setTimeout(r, 5));

    const report = await sweep();
    expect(report.orphaned).toEqual(['job_orphan0000000000001']);
    expect(await state.getJob('job_orphan0000000000001')).toMatchObject({ status: 'failed', error: { code: 'orphaned' } });
    expect((await state.getJob('job_alive00000000000001'))?.status).toBe('processing');
    expect((await state.getJob('job_fresh00000000000001'))?.status).toBe('queued');
    // Only expired leases were read: the two that lapsed, not the young queued record.
    expect(report.examined).toBe(2);
    expect(report.rearmed).toBe(1);
    // The live one was made due again later: the next sweep reads nothing.
    expect((await sweep()).examined).toBe(0);
  });

  it('finds page jobs by their real ids: a lapsed page lease whose job is queued is left to the takeover', async () => {
    const jobId = 'job_pages00000000000001';
    await state.createJob({ jobId, tenant: 't', source });
    await state.start({ jobId }, 'ocr', lease(`ocr:${stageJobId(jobId, 'ocr', 1, 'p3')}`));
    await state.start({ jobId }, 'ocr', lease(`ocr:${stageJobId(jobId, 'ocr', 1, 'p4')}`));
    await queues.ocr.add('ocr', { any: 1 }, { jobId: stageJobId(jobId, 'ocr', 1, 'p3'), delay: 60_000 });
    await queues.assemble.add('assemble', { any: 1 }, { jobId: stageJobId(jobId, 'assemble'), delay: 60_000 });
    await new Promise((r) => setTimeout(r, 5));
    const report = await sweep();
    // p3 is still queued (takeover pending); p4's job is gone, but the document's assemble job lives.
    expect(report).toMatchObject({ examined: 2, rearmed: 1, forgotten: 1, orphaned: [] });
    expect((await state.getJob(jobId))?.status).toBe('processing');
  });

  it('fails a queued record past its grace period with no queued job (the enqueue after upload failed)', async () => {
    const impatient = new JobStateStore(redis, { prefix: config.redis.prefix, ttl: { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 }, leaseMs: 1, actor: 'test:1', queuedGraceMs: 1 });
    await impatient.createJob({ jobId: 'job_lostenqueue00000001', tenant: 't', source });
    await new Promise((r) => setTimeout(r, 5));
    const report = await sweep();
    expect(report.orphaned).toContain('job_lostenqueue00000001');
  });

  it('reads nothing of finished records: a sweep over 500 of them examines none', async () => {
    for (let i = 0; i < 500; i += 1) {
      const jobId = `job_finished${String(i).padStart(11, '0')}`;
      await state.createJob({ jobId, tenant: 't', source });
      await state.start({ jobId }, 'extract', lease(`extract:${jobId}`));
      await state.complete({ jobId }, lease(`extract:${jobId}`), { packageId: jobId, size: 1, sha256: 'c'.repeat(64) });
    }
    expect((await sweep()).examined).toBe(0);
  });
});

describe('janitor', () => {
  it('removes packages whose record expired and blobs nothing references, keeps the rest', async () => {
    const keptAsset = await storage.blobs.putBuffer(Buffer.from('asset of a live package'));
    const goneAsset = await storage.blobs.putBuffer(Buffer.from('asset of an expired package'));
    const young = await storage.blobs.putBuffer(Buffer.from('unreferenced but young'));
    const base = { schemaVersion: SCHEMA_VERSION as typeof SCHEMA_VERSION, tenant: 't', origin: { parser: 'x', version: '1', engine: 'native' as const }, text: '', markdown: '', body: [], furniture: [], tables: [] };
    await state.createJob({ jobId: 'job_livepackage00000001', tenant: 't', source });
    await storage.packages.write({ ...base, packageId: 'job_livepackage00000001', jobId: 'job_livepackage00000001', source, assets: [{ sha256: keptAsset.sha256, mediaType: 'text/plain', size: 1, role: 'embedded-image' }] });
    await storage.packages.write({ ...base, packageId: 'job_deadpackage00000001', jobId: 'job_deadpackage00000001', source, assets: [{ sha256: goneAsset.sha256, mediaType: 'text/plain', size: 1, role: 'embedded-image' }] });
    // A package still in its grace period whose record is gone: its index keeps its upload.
    const upload = await storage.blobs.putBuffer(Buffer.from('the upload of a package in its grace period'));
    await storage.packages.write({ ...base, packageId: 'job_gracepackage0000001', jobId: 'job_gracepackage0000001', source: { ...source, sha256: upload.sha256 }, assets: [] });
    const old = new Date(Date.now() - 7_200_000);
    await utimes((storage.blobs as LocalBlobStore).pathOf(upload.sha256), old, old);
    await utimes(storage.packages.pathOf('job_deadpackage00000001'), old, old);
    await utimes((storage.blobs as LocalBlobStore).pathOf(goneAsset.sha256), old, old);
    await utimes((storage.blobs as LocalBlobStore).pathOf(keptAsset.sha256), old, old);

    const report = await cleanExpired(state, storage, { blobGraceMs: 3_600_000, spoolGraceMs: 3_600_000, packageGraceMs: 3_600_000 });
    expect(report.packagesRemoved).toBe(1);
    expect(await storage.packages.read('job_deadpackage00000001')).toBeNull();
    expect(await storage.packages.readIndex('job_deadpackage00000001')).toBeNull();
    expect(await storage.packages.read('job_livepackage00000001')).not.toBeNull();
    expect(await storage.packages.readIndex('job_livepackage00000001')).toMatchObject({ tenant: 't' });
    expect(await storage.blobs.has(goneAsset.sha256)).toBe(false);
    expect(await storage.blobs.has(keptAsset.sha256)).toBe(true);
    expect(await storage.blobs.has(young.sha256)).toBe(true);
    expect(await storage.blobs.has(upload.sha256)).toBe(true);
    await storage.packages.delete('job_gracepackage0000001');
  });
});

describe('janitor problems', () => {
  it('reports what it cannot clean by path and goes on; a file that vanished is no problem', async () => {
    const notADirectory = join((storage.blobs as LocalBlobStore).tmpDirectory, `not-a-dir-${Date.now()}`);
    await writeFile(notADirectory, 'a file where a directory is expected');
    const vanished = join((storage.blobs as LocalBlobStore).tmpDirectory, 'gone-already');
    const report = await cleanExpired(state, { ...storage, tmpDirs: [notADirectory, vanished, ...storage.tmpDirs] }, { blobGraceMs: 3_600_000, spoolGraceMs: 3_600_000, packageGraceMs: 3_600_000 });
    expect(report.problems).toEqual([{ path: notADirectory, error: expect.stringMatching(/ENOTDIR/) }]);
    await rm(notADirectory);
  });
});

describe('schedulers', () => {
  it('starting and stopping the consumers 10 times leaves exactly one scheduler per periodic task', async () => {
    const logger = createLogger({ component: 'test' });
    logger.silent = true;
    for (let i = 0; i < 10; i += 1) {
      const consumer = await startConsumer(i % 2 === 0 ? 'extract' : 'assemble', config, logger);
      await consumer.close(1_000);
    }
    const maintenance = new Queue(MAINTENANCE_QUEUE, { connection: redis, prefix: bullPrefix(config.redis.prefix) });
    const schedulers = await maintenance.getJobSchedulers(0, -1, true);
    expect(schedulers.map((s) => s.key).sort()).toEqual(['janitor', 'sweeper']);
    await maintenance.close();

    const env = serviceEnv({ REDIS_URL: config.redis.url, READPACK_PREFIX: config.redis.prefix, DATA_DIR: config.dataDir });
    const listing = await run(process.execPath, [builtScript('apps/cli/dist/main.js'), 'ops', 'schedulers'], { env });
    expect(listing.stdout).toMatch(/sweeper/);
    expect(listing.stdout).not.toMatch(/DUPLICATE|MISSING|UNKNOWN/);
  }, 60_000);
});
