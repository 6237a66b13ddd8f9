import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { get as httpGet, type ClientRequest } from 'node:http';
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

/** LARGE_2's ETag, as its first answer gave it. */
let largeEtag: string | undefined;

const packageUrl = (jobId: string) => `${pipeline.api.url}/api/files/job/${jobId}/package`;

/**
 * A GET on a connection of its own (no keep-alive: a pooled connection the server closes while
 * idle can be reset under the next request on a loaded machine). The answer's body is left
 * unread until asked for, so an unread answer holds its sender back, as a slow client's does.
 */
interface Answer {
  status: number;
  header(name: string): string | undefined;
  text(): Promise<string>;
}
/** Requests not yet read to their end: a failing test must not leave the API's close waiting on them. */
const unfinished = new Set<ClientRequest>();

function get(url: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false, headers, ...(signal ? { signal } : {}) }, (res) => {
      res.once('close', () => unfinished.delete(req));
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        header: (name) => {
          const value = res.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : value;
        },
        text: () =>
          new Promise((done, fail) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
            res.once('error', fail);
            res.resume();
          }),
      });
    });
    unfinished.add(req);
    req.once('error', (error) => {
      unfinished.delete(req);
      reject(error);
    });
  });
}
const json = async <T>(answer: Answer): Promise<T> => JSON.parse(await answer.text()) as T;

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
  for (const req of unfinished) req.destroy();
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

    const first = await get(packageUrl(LARGE_1));
    expect(first.status).toBe(200);
    expect(first.header('content-length')).toBeUndefined();
    const second = get(packageUrl(LARGE_2));
    // Without turns its headers come once the API has read and parsed it: ~1.5 s here.
    expect(await settlesWithin(second, 5_000)).toBe(false);
    // A small package is answered meanwhile.
    const small = await get(packageUrl(SMALL));
    expect(small.status).toBe(200);
    expect((await json<{ body: unknown[] }>(small)).body).toHaveLength(10);

    const firstBody = await json<{ jobId: string; body: unknown[] }>(first);
    expect(firstBody.body).toHaveLength(300_000);
    const secondAnswer = await second;
    expect(secondAnswer.status).toBe(200);
    largeEtag = secondAnswer.header('etag');
    const secondBody = await json<{ jobId: string; body: unknown[] }>(secondAnswer);
    expect(secondBody.jobId).toBe(LARGE_2);
    expect(secondBody.body).toHaveLength(300_000);
  }, 120_000);

  it('a client that gives up while it waits leaves no turn behind', async () => {
    const first = await get(packageUrl(LARGE_1));
    const quitting = new AbortController();
    const abandoned = get(packageUrl(LARGE_2), {}, quitting.signal);
    expect(await settlesWithin(abandoned, 500)).toBe(false);
    quitting.abort();
    await expect(abandoned).rejects.toThrow();
    await first.text();
    // Had the abandoned request kept (or later taken) a turn, this read would wait for ever.
    const next = await get(packageUrl(LARGE_2));
    expect(next.status).toBe(200);
    expect((await json<{ body: unknown[] }>(next)).body).toHaveLength(300_000);
  }, 120_000);

  it('a client that has the answer gets 304 from the record alone: no turn, no read', async () => {
    const small = await get(packageUrl(SMALL));
    const etag = small.header('etag');
    expect(etag).toMatch(/^"package-[A-Za-z0-9_-]{32}"$/);
    await small.text();
    const again = await get(packageUrl(SMALL), { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    // The Markdown answer has an ETag of its own.
    const markdown = await get(`${pipeline.api.url}/api/files/job/${SMALL}/markdown`);
    const markdownEtag = markdown.header('etag');
    expect(markdownEtag).toMatch(/^"markdown-/);
    expect(markdownEtag).not.toBe(etag);
    await markdown.text();
    expect((await get(`${pipeline.api.url}/api/files/job/${SMALL}/markdown`, { 'If-None-Match': markdownEtag! })).status).toBe(304);

    // While a large answer holds the whole budget unread, a revalidation of another large package
    // is answered at once: it never reads the package, so it needs no turn.
    expect(largeEtag).toMatch(/^"package-/);
    const held = await get(packageUrl(LARGE_1));
    expect(held.status).toBe(200);
    const revalidated = get(packageUrl(LARGE_2), { 'If-None-Match': largeEtag! });
    expect(await settlesWithin(revalidated, 5_000)).toBe(true);
    expect((await revalidated).status).toBe(304);
    // A stale ETag gets the package, in its turn.
    const stale = get(packageUrl(LARGE_2), { 'If-None-Match': '"package-stale"' });
    expect(await settlesWithin(stale, 1_000)).toBe(false);
    await held.text();
    expect((await stale).status).toBe(200);
    expect((await stale).header('etag')).toBe(largeEtag);
    await (await stale).text();
  }, 120_000);
});
