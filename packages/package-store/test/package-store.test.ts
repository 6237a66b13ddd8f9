import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobTooLargeError, ignoreMissing, openStorage, SCHEMA_VERSION, type PackageManifest, type Storage } from '../src/index.js';

let dir: string;
let storage: Storage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-store-'));
  storage = await openStorage(dir);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('blob store', () => {
  it('stores content by its sha256, once', async () => {
    const a = await storage.blobs.putBuffer(Buffer.from('hello'));
    const b = await storage.blobs.putStream(Readable.from([Buffer.from('hel'), Buffer.from('lo')]));
    expect(a).toEqual(b);
    expect(a.sha256).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect((await storage.blobs.readBuffer(a.sha256)).toString()).toBe('hello');
    expect(await readdir(join(dir, 'blobs', '.tmp'))).toEqual([]);
  });

  it('aborts a stream over the limit and leaves nothing behind', async () => {
    const big = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(storage.blobs.putStream(big, 1_000)).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await readdir(join(dir, 'blobs', '.tmp'))).toEqual([]);
  });
});

describe('package store', () => {
  const manifest = (text: string): PackageManifest => ({
    schemaVersion: SCHEMA_VERSION,
    packageId: 'job_abcdefgh',
    jobId: 'job_abcdefgh',
    tenant: 't',
    source: { filename: 'a.txt', mediaType: 'text/plain', size: 5, sha256: '0'.repeat(64) },
    origin: { parser: 'readpack-text', version: '1', engine: 'native' },
    text,
    markdown: text,
    body: [],
    furniture: [],
    tables: [],
    assets: [],
  });

  it('writes a manifest atomically and byte-identically on re-run', async () => {
    const first = await storage.packages.write(manifest('hello'));
    const bytes1 = await readFile(storage.packages.pathOf('job_abcdefgh'));
    const second = await storage.packages.write(manifest('hello'));
    const bytes2 = await readFile(storage.packages.pathOf('job_abcdefgh'));
    expect(second).toEqual(first);
    expect(bytes2.equals(bytes1)).toBe(true);
    expect((await storage.packages.read('job_abcdefgh'))?.text).toBe('hello');
    expect(await readdir(join(dir, 'packages', '.tmp'))).toEqual([]);
  });

  it('refuses a manifest whose assets are missing', async () => {
    const m = manifest('x');
    m.assets.push({ sha256: 'f'.repeat(64), mediaType: 'image/png', size: 1, role: 'embedded-image' });
    await expect(storage.packages.write({ ...m, packageId: 'job_missingasset' })).rejects.toThrow(/not in the blob store/);
    expect(await storage.packages.read('job_missingasset')).toBeNull();
  });

  it("writes the package's index (tenant and assets) with it, and deletes both", async () => {
    const blob = await storage.blobs.putBuffer(Buffer.from('an image'));
    const m = { ...manifest('indexed'), packageId: 'job_indexed01' };
    m.assets.push({ sha256: blob.sha256, mediaType: 'image/png', size: blob.size, role: 'embedded-image' });
    await storage.packages.write(m);
    expect(await storage.packages.readIndex('job_indexed01')).toEqual({ tenant: 't', source: m.source.sha256, assets: m.assets });
    expect(await storage.packages.list()).toContain('job_indexed01');
    await storage.packages.delete('job_indexed01');
    expect(await storage.packages.readIndex('job_indexed01')).toBeNull();
    expect(await storage.packages.read('job_indexed01')).toBeNull();
    expect(await storage.packages.list()).not.toContain('job_indexed01');
  });

  it('answers null for absent or malformed ids', async () => {
    expect(await storage.packages.readIndex('job_nothere1')).toBeNull();
    expect(await storage.packages.readIndex('../../etc/passwd')).toBeNull();
    expect(await storage.packages.read('job_nothere1')).toBeNull();
    expect(await storage.packages.read('../../etc/passwd')).toBeNull();
  });
});

describe('ignoreMissing', () => {
  it('turns ENOENT into the fallback and rethrows anything else', () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, stat '/x'"), { code: 'ENOENT' });
    const eacces = Object.assign(new Error("EACCES: permission denied, scandir '/y'"), { code: 'EACCES', path: '/y' });
    expect(ignoreMissing([])(enoent)).toEqual([]);
    expect(() => ignoreMissing([])(eacces)).toThrow(/EACCES.*\/y/);
  });
});
