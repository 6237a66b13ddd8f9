import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, SCHEMA_VERSION, type PackageManifest, type Storage } from '@readpack/package-store';
import { startPipeline, type Pipeline } from '../harness.js';

/**
 * ASSET_DELIVERY=presigned: the API checks the tenant from the package index, then redirects to
 * a short-lived presigned URL of the bucket (s3rver on loopback), which serves the bytes with the
 * headers the API would have sent.
 */
let pipeline: Pipeline;
let storage: Storage;
let dir: string;
const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('not really a png')]);

function manifest(packageId: string, tenant: string, sha256: string): PackageManifest {
  return {
    schemaVersion: SCHEMA_VERSION,
    packageId,
    jobId: packageId,
    tenant,
    source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1, sha256: '0'.repeat(64) },
    origin: { parser: 'test', version: '1', engine: 'text' },
    text: '',
    markdown: '',
    body: [],
    furniture: [],
    tables: [],
    assets: [{ sha256, mediaType: 'image/png', size: png.length, role: 'embedded-image', name: 'figure 1.png' }],
  } as unknown as PackageManifest;
}

beforeAll(async () => {
  pipeline = await startPipeline({ STORAGE: 's3', ASSET_DELIVERY: 'presigned', ASSET_URL_TTL_SECONDS: '60' }, { consumers: false });
  // Another process's view of the same bucket, as a consumer would write it.
  dir = await mkdtemp(join(tmpdir(), 'readpack-presign-'));
  storage = await openStorage(dir, pipeline.config.storage.s3);
});
afterAll(async () => {
  await pipeline?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('presigned asset delivery', () => {
  it('redirects the owner to a short-lived URL that serves the bytes with safe headers', async () => {
    const { sha256 } = await storage.blobs.putBuffer(png);
    await storage.packages.write(manifest('job_presigned01', 'default', sha256));
    const res = await fetch(`${pipeline.api.url}/api/assets/job_presigned01.${sha256}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${pipeline.s3!.endpoint}/${pipeline.s3!.bucket}/`)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('60');
    const object = await fetch(location);
    expect(object.status).toBe(200);
    expect(Buffer.from(await object.arrayBuffer()).equals(png)).toBe(true);
    expect(object.headers.get('content-type')).toBe('image/png');
    expect(object.headers.get('content-disposition')).toContain('inline');
  });

  it('another tenant gets 404 and no URL: the check comes before signing', async () => {
    const { sha256 } = await storage.blobs.putBuffer(png);
    await storage.packages.write(manifest('job_presigned02', 'someone-else', sha256));
    const res = await fetch(`${pipeline.api.url}/api/assets/job_presigned02.${sha256}`, { redirect: 'manual' });
    expect(res.status).toBe(404);
    expect(res.headers.get('location')).toBeNull();
  });
});
