import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { connectTestRedis, fixturePath } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, type Pipeline } from '../harness.js';
import { errorCode, TenantClient } from './support/client.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

const ALICE_KEY = 'alice-key-6f1d2c9a0b7e4f3a';
const BOB_KEY = 'bob-key-93c1e0a7d5b24f68aa';
const KEYS = `${ALICE_KEY}:alice,${BOB_KEY}:bob`;
const ADMIN_TOKEN = 'admin-token-4b1f0e6c2d9a8b7c';
const VIEWER_TOKEN = 'viewer-token-8e2c4a1f9b0d3e5c';

/** What another tenant's resource must look like: the same status and body as one that never existed. */
async function sameAsMissing(other: Response, missing: Response): Promise<void> {
  expect(other.status).toBe(404);
  expect(missing.status).toBe(404);
  expect(await other.json()).toEqual(await missing.json());
}

describe('tenants cannot see each other', () => {
  let pipeline: Pipeline;
  let alice: TenantClient;
  let bob: TenantClient;
  let jobId: string;
  let batchId: string;
  let assetUrl: string;

  beforeAll(async () => {
    pipeline = await startPipeline({ API_KEYS: KEYS, ADMIN_TOKEN, ADMIN_VIEWER_TOKEN: VIEWER_TOKEN });
    alice = new TenantClient(pipeline.api.url, ALICE_KEY);
    bob = new TenantClient(pipeline.api.url, BOB_KEY);
    // word_sample.docx carries an image: its package has an asset to probe.
    jobId = await alice.submit({ name: 'word_sample.docx', data: await readFile(fixturePath('word_sample.docx')) });
    expect(await alice.terminal(jobId)).toMatchObject({ status: 'done' });
    const manifest = (await (await alice.get(`/api/files/job/${jobId}/package`)).json()) as { assets: { url: string }[] };
    assetUrl = new URL(manifest.assets[0]!.url).pathname;
    const batch = await alice.uploadBatch([{ name: 'a.txt', data: Buffer.from('alice batch file') }]);
    expect(batch.status).toBe(202);
    batchId = ((await batch.json()) as { batchId: string }).batchId;
  }, 120_000);
  afterAll(async () => pipeline?.stop());

  it('the owner reads job, batch, package and asset', async () => {
    expect((await alice.get(`/api/files/job/${jobId}`)).status).toBe(200);
    expect((await alice.get(`/api/files/batch/${batchId}`)).status).toBe(200);
    expect((await alice.get(`/api/files/job/${jobId}/package`)).status).toBe(200);
    const asset = await alice.get(assetUrl);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    expect(asset.headers.get('content-disposition')).toMatch(/^(inline|attachment); filename="[^"\\]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
  });

  it("another tenant gets exactly the 404 of an id that does not exist, for job, batch, package and asset", async () => {
    const ghostJob = 'job_AAAAAAAAAAAAAAAAAAAAAA';
    const ghostBatch = 'batch_AAAAAAAAAAAAAAAAAAAAAA';
    await sameAsMissing(await bob.get(`/api/files/job/${jobId}`), await bob.get(`/api/files/job/${ghostJob}`));
    await sameAsMissing(await bob.get(`/api/files/batch/${batchId}`), await bob.get(`/api/files/batch/${ghostBatch}`));
    await sameAsMissing(await bob.get(`/api/files/job/${jobId}/package`), await bob.get(`/api/files/job/${ghostJob}/package`));
    const ghostAsset = assetUrl.replace(/\.[0-9a-f]{64}$/, `.${'0'.repeat(64)}`).replace(jobId, ghostJob);
    await sameAsMissing(await bob.get(assetUrl), await bob.get(ghostAsset));
  });

  it('no key or an unknown key is 401 on every /api route, before any lookup', async () => {
    const anonymous = new TenantClient(pipeline.api.url);
    const stranger = new TenantClient(pipeline.api.url, 'not-a-key-but-long-enough');
    for (const path of [`/api/files/job/${jobId}`, `/api/files/batch/${batchId}`, `/api/files/job/${jobId}/package`, assetUrl, '/api/nothing-here']) {
      const missing = await anonymous.get(path);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await errorCode(missing)).toBe('auth_required');
      const unknown = await stranger.get(path);
      expect(unknown.status).toBe(401);
      expect(await errorCode(unknown)).toBe('invalid_api_key');
    }
    const upload = await anonymous.upload({ name: 'x.txt', data: Buffer.from('x') });
    expect(upload.status).toBe(401);
    // Basic auth with the key as password is for the admin pages only.
    expect((await fetch(`${pipeline.api.url}/api/files/job/${jobId}`, { headers: { authorization: `Basic ${Buffer.from(`u:${ALICE_KEY}`).toString('base64')}` } })).status).toBe(401);
    expect((await anonymous.get('/healthz')).status).toBe(200);
  });

  it('ids carry 128 random bits', async () => {
    expect(jobId).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    expect(batchId).toMatch(/^batch_[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(jobId.slice(4), 'base64url')).toHaveLength(16);
  });
});

describe('the same content from two tenants', () => {
  let pipeline: Pipeline;
  let redis: RedisClient;
  let extractQueue: Queue;
  beforeAll(async () => {
    // No consumers: jobs stay queued, which is when active-only dedup would join them.
    pipeline = await startPipeline({ API_KEYS: KEYS }, { consumers: false });
    redis = connectTestRedis();
    extractQueue = new Queue('extract', { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
  });
  afterAll(async () => {
    await extractQueue.close();
    await redis.quit();
    await pipeline.stop();
  });

  it('makes two jobs (no cross-tenant dedup), while a tenant re-uploading joins its own running job', async () => {
    const alice = new TenantClient(pipeline.api.url, ALICE_KEY);
    const bob = new TenantClient(pipeline.api.url, BOB_KEY);
    const file = { name: 'shared.txt', data: Buffer.from('the very same bytes, uploaded by two tenants') };
    const first = (await (await alice.upload(file)).json()) as { jobId: string; deduplicated: boolean };
    const again = (await (await alice.upload(file)).json()) as { jobId: string; deduplicated: boolean };
    const other = (await (await bob.upload(file)).json()) as { jobId: string; deduplicated: boolean };
    expect(again).toMatchObject({ jobId: first.jobId, deduplicated: true });
    expect(other.deduplicated).toBe(false);
    expect(other.jobId).not.toBe(first.jobId);
    expect((await extractQueue.getJob(first.jobId))?.data).toMatchObject({ tenant: 'alice' });
    expect((await extractQueue.getJob(other.jobId))?.data).toMatchObject({ tenant: 'bob' });
    expect((await bob.get(`/api/files/job/${first.jobId}`)).status).toBe(404);
    expect((await alice.get(`/api/files/job/${other.jobId}`)).status).toBe(404);
  });

  it('tells PDF passwords apart by a keyed hash only, and queues them sealed', async () => {
    const alice = new TenantClient(pipeline.api.url, ALICE_KEY);
    const file = { name: 'locked.pdf', data: await readFile(fixturePath('libreoffice-writer-password.pdf')) };
    const submit = async (fields: Record<string, string>) => (await (await alice.upload(file, fields)).json()) as { jobId: string; deduplicated: boolean };
    const right = await submit({ password: 'openpassword' });
    expect(await submit({ password: 'openpassword' })).toEqual({ ...right, deduplicated: true, status: 'queued', statusUrl: expect.any(String) });
    const wrong = await submit({ password: 'another-password' });
    const none = await submit({});
    expect(new Set([right.jobId, wrong.jobId, none.jobId]).size).toBe(3);
    const data = (await extractQueue.getJob(right.jobId))?.data as { secrets?: { password?: string } };
    expect(data.secrets?.password).toMatch(/^v1\./);
    const stored = JSON.stringify([data, await redis.hgetall(`${pipeline.config.redis.prefix}:job:${right.jobId}`), await redis.keys(`${pipeline.config.redis.prefix}:dedup:*`)]);
    expect(stored).not.toContain('openpassword');
    expect((await extractQueue.getJob(none.jobId))?.data).not.toHaveProperty('secrets');
  });
});

describe('admin pages', () => {
  let pipeline: Pipeline;
  let board: string;
  beforeAll(async () => {
    pipeline = await startPipeline({ API_KEYS: KEYS, ADMIN_TOKEN, ADMIN_VIEWER_TOKEN: VIEWER_TOKEN }, { consumers: false });
    board = `${pipeline.api.url}/admin/queues`;
  });
  afterAll(async () => pipeline?.stop());

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('take an admin credential, never a tenant key', async () => {
    expect((await fetch(`${board}/api/queues`)).status).toBe(401);
    expect((await fetch(`${board}/api/queues`, { headers: bearer(ALICE_KEY) })).status).toBe(401);
    expect((await fetch(`${board}/api/queues`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
    const basic = Buffer.from(`ops:${ADMIN_TOKEN}`).toString('base64');
    expect((await fetch(`${board}/api/queues`, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });

  it('give a viewer a read-only board: reads work, every write answers 405', async () => {
    const res = await fetch(`${board}/api/queues`, { headers: bearer(VIEWER_TOKEN) });
    expect(res.status).toBe(200);
    const { queues } = (await res.json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(queues.length).toBeGreaterThan(0);
    expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    for (const [method, path] of [
      ['PUT', '/api/queues/pause'],
      ['PUT', '/api/queues/extract/clean/completed'],
      ['PUT', '/api/queues/extract/obliterate'],
      ['POST', '/api/queues/extract/add'],
      ['PATCH', '/api/queues/extract/job_x/update-data'],
    ] as const) {
      const write = await fetch(`${board}${path}`, { method, headers: { ...bearer(VIEWER_TOKEN), 'content-type': 'application/json' }, body: '{}' });
      expect(write.status).toBe(405);
    }
    const admin = (await (await fetch(`${board}/api/queues`, { headers: bearer(ADMIN_TOKEN) })).json()) as { queues: { readOnlyMode: boolean }[] };
    expect(admin.queues.every((q) => !q.readOnlyMode)).toBe(true);
    // The admin may pause; the viewer could not.
    expect((await fetch(`${board}/api/queues/extract/pause`, { method: 'PUT', headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
  });

  it('stay shut to loopback clients without a token once tenants exist', async () => {
    const keyed = await startPipeline({ API_KEYS: KEYS }, { consumers: false });
    try {
      const res = await fetch(`${keyed.api.url}/admin/queues/api/queues`);
      expect(res.status).toBe(403);
      expect(await errorCode(res)).toBe('admin_disabled');
    } finally {
      await keyed.stop();
    }
  });
});
