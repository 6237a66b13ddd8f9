import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobStateStore } from '@readpack/job-state';
import { openStorage, SCHEMA_VERSION, type PackageManifest, type Storage } from '@readpack/package-store';
import type { RedisClient } from '@readpack/redis';
import { connectTestRedis } from '@readpack/testing';
import { startPipeline, type Pipeline } from '../harness.js';

/**
 * PACKAGE_READ_BUDGET_MB through the real API: an answer of a large package holds its turn until
 * it is sent, so a second reader of a large package waits while the first client has not read
 * its answer, and is answered in full once it has; small packages never wait.
 */
let pipeline: Pipeline;
let redis: RedisClient;
let state: JobStateStore;
let storage: Storage;
let scratch: string;

const source = { filename: 'big.pdf', mediaType: 'application/pdf', size: 1, sha256: '0'.repeat(64) };
const lease = (jobId: string) => ({ series: 1, holder: `extract:${jobId}`, epoch: 1, token: 'tok' });

/** A done job whose package has `paragraphs` paragraphs of text (about 90 bytes of package each). */
async function donePackage(jobId: string, paragraphs: number): Promise<number> {
  const texts = Array.from({ length: paragraphs }, (_, i) => `Paragraph ${i} of a long document, with enough words to weigh something.`);
  const manifest = {
    schemaVersion: SCHEMA_VERSION,
    packageId: jobId,
    jobId,
    tenant: 'default',
    source,
    origin: { parser: 'test', version: '1', engine: 'native' },
    text: texts.join('\n\n'),
    markdown: texts.join('\n\n'),
    body: texts.map((text, i) => ({ type: 'paragraph', id: `b${i}`, text })),
    furniture: [],
    tables: [],
    assets: [],
  } as unknown as PackageManifest;
  const written = await storage.packages.write(manifest);
  await state.createJob({ jobId, tenant: 'default', source });
  await state.start({ jobId }, 'extract', lease(jobId));
  await state.complete({ jobId }, lease(jobId), written);
  return written.size;
}

/** Job ids as the API makes them (`job_` and 22 characters); any other shape is refused unread. */
const wellFormedJobId = (name: string) => `job_${name.padEnd(22, '0')}`;
const LARGE_1 = wellFormedJobId('largeread1');
const LARGE_2 = wellFormedJobId('largeread2');
const SMALL = wellFormedJobId('smallread');

const packageUrl = (jobId: string) => `${pipeline.api.url}/api/files/job/${jobId}/package`;

/** Whether a promise has settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

beforeAll(async () => {
  pipeline = await startPipeline({ PACKAGE_READ_BUDGET_MB: '1' }, { consumers: false });
  redis = connectTestRedis();
  const { config } = pipeline;
  state = new JobStateStore(redis, { prefix: config.redis.prefix, ttl: { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 }, leaseMs: 60_000, actor: 'test:1' });
  scratch = await mkdtemp(join(tmpdir(), 'readpack-package-reads-'));
  // The API's storage as a consumer sees it (its own spool directory with STORAGE=s3).
  storage = await openStorage(config.storage.kind === 's3' ? scratch : config.dataDir, config.storage.s3);
}, 60_000);
afterAll(async () => {
  await pipeline?.stop();
  await redis?.quit();
  await rm(scratch, { recursive: true, force: true });
});

describe('large package answers take turns (PACKAGE_READ_BUDGET_MB)', () => {
  it('a second large package waits while the first answer is unread, and both arrive whole', async () => {
    // ~27 MB each: more than the sockets between the API and this client buffer, so an unread answer stays unsent.
    const sizes = [await donePackage(LARGE_1, 300_000), await donePackage(LARGE_2, 300_000)];
    expect(Math.min(...sizes)).toBeGreaterThan(20 * 1024 * 1024);
    await donePackage(SMALL, 10);

    const first = await fetch(packageUrl(LARGE_1));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-length')).toBeNull();
    const second = fetch(packageUrl(LARGE_2));
    // Without turns its headers come once the API has read and parsed it: ~1.5 s here.
    expect(await settlesWithin(second, 5_000)).toBe(false);
    // A small package is answered meanwhile.
    const small = await fetch(packageUrl(SMALL));
    expect(small.status).toBe(200);
    expect(((await small.json()) as { body: unknown[] }).body).toHaveLength(10);

    const firstBody = (await first.json()) as { jobId: string; body: unknown[] };
    expect(firstBody.body).toHaveLength(300_000);
    const secondAnswer = await second;
    expect(secondAnswer.status).toBe(200);
    const secondBody = (await secondAnswer.json()) as { jobId: string; body: unknown[] };
    expect(secondBody.jobId).toBe(LARGE_2);
    expect(secondBody.body).toHaveLength(300_000);
  }, 120_000);

  it('a client that gives up while it waits leaves no turn behind', async () => {
    const first = await fetch(packageUrl(LARGE_1));
    const quitting = new AbortController();
    const abandoned = fetch(packageUrl(LARGE_2), { signal: quitting.signal });
    expect(await settlesWithin(abandoned, 500)).toBe(false);
    quitting.abort();
    await expect(abandoned).rejects.toThrow();
    await first.arrayBuffer();
    // Had the abandoned request kept (or later taken) a turn, this read would wait for ever.
    const next = await fetch(packageUrl(LARGE_2));
    expect(next.status).toBe(200);
    expect(((await next.json()) as { body: unknown[] }).body).toHaveLength(300_000);
  }, 120_000);
});
