import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { connectTestRedis, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, upload, type Pipeline } from '../../../test/harness.js';
import { checkResponsesAgainstOpenApi } from '../../../test/support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

// No consumers: these tests look at what the API alone stores and enqueues.
let pipeline: Pipeline;
let redis: RedisClient;
let extractQueue: Queue;
const LIMIT = 64 * 1024;

beforeAll(async () => {
  pipeline = await startPipeline({ MAX_UPLOAD_BYTES: String(LIMIT), MAX_BATCH_FILES: '3' }, { consumers: false });
  redis = connectTestRedis();
  extractQueue = new Queue('extract', { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
});
afterAll(async () => {
  await extractQueue.close();
  await redis.quit();
  await pipeline.stop();
});

const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120)]);

async function nothingStored(): Promise<void> {
  expect(await extractQueue.count()).toBe(0);
  expect(await redis.keys(`${pipeline.config.redis.prefix}:job:*`)).toEqual([]);
  // Multer removes a refused part's spool file as it aborts; allow that removal to land.
  await waitFor(async () => ((await readdir(join(pipeline.config.dataDir, 'blobs', '.tmp'))).length === 0 ? true : undefined), { timeoutMs: 5_000, what: 'an empty spool' });
  const shards = (await readdir(join(pipeline.config.dataDir, 'blobs'))).filter((d) => d !== '.tmp');
  expect(shards).toEqual([]);
}

describe('upload validation', () => {
  it('413 for a file over MAX_UPLOAD_BYTES, nothing enqueued or kept', async () => {
    const res = await upload(pipeline.api.url, [{ name: 'big.txt', data: Buffer.alloc(LIMIT + 1, 'a') }]);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'file_too_large', limitBytes: LIMIT } });
    await nothingStored();
  });

  it('413 before reading a body that announces itself too large', async () => {
    const res = await fetch(`${pipeline.api.url}/api/files`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(50 * 1024 * 1024) },
      body: 'x',
    }).catch((error: unknown) => error);
    // The server answers and closes without reading; fetch may see the answer or a reset.
    if (res instanceof Response) expect(res.status).toBe(413);
    await nothingStored();
  });

  it('415 for an executable renamed .pdf, nothing enqueued or kept', async () => {
    const res = await upload(pipeline.api.url, [{ name: 'invoice.pdf', data: ELF }]);
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { code: 'unsupported_media_type', detected: 'application/x-elf' } });
    await nothingStored();
  });

  it('a batch with one bad file is refused whole', async () => {
    const res = await upload(
      pipeline.api.url,
      [
        { name: 'ok.txt', data: Buffer.from('hello'), field: 'files' },
        { name: 'bad.docx', data: ELF, field: 'files' },
      ],
      '/api/files/batch',
    );
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { code: 'unsupported_media_type', index: 1 } });
    await nothingStored();
  });

  it('413 for too many files in a batch', async () => {
    const files = Array.from({ length: 4 }, (_, i) => ({ name: `${i}.txt`, data: Buffer.from(`f${i}`), field: 'files' }));
    const res = await upload(pipeline.api.url, files, '/api/files/batch');
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: 'too_many_files' } });
    await nothingStored();
  });

  it('400 for an empty file and for a missing file field', async () => {
    expect((await upload(pipeline.api.url, [{ name: 'empty.pdf', data: new Uint8Array() }])).status).toBe(400);
    const missing = await upload(pipeline.api.url, [{ name: 'x.txt', data: Buffer.from('x'), field: 'other' }]);
    expect(missing.status).toBe(400);
    await nothingStored();
  });

  it('accepts a text file, stores the record queued and enqueues one extract job', async () => {
    const res = await upload(pipeline.api.url, [{ name: '../../etc/notes.md', data: Buffer.from('# Title\n\nbody') }]);
    expect(res.status).toBe(202);
    expect(res.headers.get('x-served-by')).toMatch(/:\d+$/);
    const { jobId } = (await res.json()) as { jobId: string };
    expect(jobId).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    const status = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ status: 'queued', phase: 'queued', source: { filename: 'notes.md', mediaType: 'text/markdown' } });
    const job = await extractQueue.getJob(jobId);
    expect(job?.data).toMatchObject({ jobId, tenant: 'default', source: { mediaType: 'text/markdown', size: 13 } });
    expect(JSON.stringify(job?.data)).not.toContain('body'); // references, never document bytes
    await extractQueue.obliterate({ force: true });
  });
});

describe('admin', () => {
  it('Bull Board lists every queue to a loopback client when no ADMIN_TOKEN is set', async () => {
    const res = await fetch(`${pipeline.api.url}/admin/queues/api/queues`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(
      ['assemble', 'assemble-dlq', 'convert', 'convert-dlq', 'extract', 'extract-dlq', 'maintenance', 'mineru', 'mineru-dlq', 'ocr', 'ocr-dlq', 'render', 'render-dlq', 'webhook', 'webhook-dlq'],
    );
  });
});

describe('admin with a token', () => {
  let secured: Pipeline;
  beforeAll(async () => {
    secured = await startPipeline({ ADMIN_TOKEN: 'correct-horse-battery-staple' }, { consumers: false });
  });
  afterAll(async () => secured.stop());

  it('refuses without credentials and accepts bearer or basic', async () => {
    const url = `${secured.api.url}/admin/queues/api/queues`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer correct-horse-battery-staple' } })).status).toBe(200);
    const basic = Buffer.from('ops:correct-horse-battery-staple').toString('base64');
    expect((await fetch(url, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });
});
