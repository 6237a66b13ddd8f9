import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobTooLargeError, ChecksumMismatchError, isMissing, SCHEMA_VERSION, SpilledJson, type PackageManifest, type Storage, type StreamedManifest } from '../src/index.js';

/** One implementation under test: its storage, a way to corrupt a stored blob, and clean-up. */
export interface StorageUnderTest {
  storage: Storage;
  /** Replaces a stored blob's bytes behind the store's back (bit rot, a bad disk, a rogue writer). */
  corrupt(sha256: string, bytes: Buffer): Promise<void>;
  /** The multipart threshold of this storage (bytes); a blob this large takes that path on S3. */
  largeBytes: number;
  close(): Promise<void>;
}

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function consume(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves true when `promise` rejects with a missing-object error (ENOENT or NoSuchKey alike). */
async function failsMissing(promise: Promise<unknown>): Promise<boolean> {
  return promise.then(
    () => false,
    (error: unknown) => isMissing(error),
  );
}

async function listed(storage: Storage, sha256: string) {
  const seen = [];
  for await (const blob of storage.blobs.list()) if (blob.sha256 === sha256) seen.push(blob);
  return seen;
}

/**
 * The storage contract: every implementation (local directory, S3) passes the same suite, so the
 * pipeline cannot tell them apart.
 */
export function storageContract(name: string, open: () => Promise<StorageUnderTest>): void {
  describe(`storage contract: ${name}`, () => {
    let it_: StorageUnderTest;
    let storage: Storage;
    beforeAll(async () => {
      it_ = await open();
      storage = it_.storage;
    });
    afterAll(async () => it_?.close());

    it('stores content under its sha256, by buffer or stream alike', async () => {
      const a = await storage.blobs.putBuffer(Buffer.from('hello'));
      const b = await storage.blobs.putStream(Readable.from([Buffer.from('hel'), Buffer.from('lo')]));
      expect(a).toEqual(b);
      expect(a.sha256).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
      expect(await storage.blobs.has(a.sha256)).toBe(true);
      expect(await storage.blobs.size(a.sha256)).toBe(5);
      expect((await storage.blobs.readBuffer(a.sha256)).toString()).toBe('hello');
      expect((await consume(storage.blobs.read(a.sha256))).toString()).toBe('hello');
      expect(await readdir(storage.spoolDir)).toEqual([]);
    });

    it('a second write of the same content is a no-op', async () => {
      const data = randomBytes(1_000);
      const first = await storage.blobs.putBuffer(data);
      const [before] = await listed(storage, first.sha256);
      await sleep(1_100); // object stores keep whole seconds
      await storage.blobs.putBuffer(data);
      await storage.blobs.putStream(Readable.from([data]));
      const after = await listed(storage, first.sha256);
      expect(after).toEqual([before]);
    });

    it('a missing blob: has false, size undefined, reads fail as missing', async () => {
      const absent = sha(Buffer.from('never stored'));
      expect(await storage.blobs.has(absent)).toBe(false);
      expect(await storage.blobs.size(absent)).toBeUndefined();
      expect(await failsMissing(storage.blobs.readBuffer(absent))).toBe(true);
      expect(await failsMissing(consume(storage.blobs.read(absent)))).toBe(true);
      expect(await failsMissing(storage.blobs.withLocalFile(absent, async () => 'used'))).toBe(true);
      await expect(storage.blobs.delete(absent)).resolves.toBeUndefined();
    });

    it('a stream over the limit fails and leaves nothing behind', async () => {
      const big = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
      await expect(storage.blobs.putStream(big, 1_000)).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await readdir(storage.spoolDir)).toEqual([]);
      expect(await storage.blobs.has(sha(Buffer.alloc(1_200)))).toBe(false);
    });

    it('a spooled upload is stored by adopt, and its spool file is gone', async () => {
      const data = randomBytes(10_000);
      const spooled = await storage.blobs.spool(Readable.from([data]));
      expect(spooled).toMatchObject({ sha256: sha(data), size: data.length });
      expect(await storage.blobs.has(spooled.sha256)).toBe(false);
      await storage.blobs.adopt(spooled.path, spooled.sha256);
      expect(existsSync(spooled.path)).toBe(false);
      expect((await storage.blobs.readBuffer(spooled.sha256)).equals(data)).toBe(true);
    });

    it('a spool keeps the bytes in memory only when they fit the size asked for', async () => {
      const data = randomBytes(10_000);
      const small = await storage.blobs.spool(Readable.from([data.subarray(0, 4_000), data.subarray(4_000)]), undefined, 10_000);
      expect(small.bytes?.equals(data)).toBe(true);
      const large = await storage.blobs.spool(Readable.from([data.subarray(0, 4_000), data.subarray(4_000)]), undefined, 9_999);
      expect(large.bytes).toBeUndefined();
      expect(large).toMatchObject({ sha256: sha(data), size: data.length });
      const unasked = await storage.blobs.spool(Readable.from([data]));
      expect(unasked.bytes).toBeUndefined();
      for (const spooled of [small, large, unasked]) await storage.blobs.adopt(spooled.path, spooled.sha256);
      expect((await storage.blobs.readBuffer(sha(data))).equals(data)).toBe(true);
    });

    it('a large file (multipart on S3) is stored whole, and readers never see part of it', async () => {
      const data = randomBytes(it_.largeBytes * 2 + 12_345);
      const sha256 = sha(data);
      const spooled = await storage.blobs.spool(Readable.from([data.subarray(0, 1 << 20), data.subarray(1 << 20)]));
      let watching = true;
      const partials: number[] = [];
      const watcher = (async () => {
        while (watching) {
          const size = await storage.blobs.size(sha256);
          if (size !== undefined && size !== data.length) partials.push(size);
          await sleep(5);
        }
      })();
      await storage.blobs.adopt(spooled.path, sha256);
      watching = false;
      await watcher;
      expect(partials).toEqual([]);
      expect(sha(await consume(storage.blobs.read(sha256)))).toBe(sha256);
    }, 60_000);

    it('copyTo and withLocalFile give a local file, removed after use on success and on failure', async () => {
      const data = randomBytes(5_000);
      const { sha256 } = await storage.blobs.putBuffer(data);
      const dir = storage.spoolDir;
      const target = join(dir, 'copy-test');
      await storage.blobs.copyTo(sha256, target);
      expect((await readFile(target)).equals(data)).toBe(true);
      await rm(target);

      let seen = '';
      const twice = await Promise.all([1, 2].map(() => storage.blobs.withLocalFile(sha256, async (path) => ((seen = path), sha(await readFile(path))))));
      expect(twice).toEqual([sha256, sha256]);
      await expect(storage.blobs.withLocalFile(sha256, async () => Promise.reject(new Error('parser failed')))).rejects.toThrow('parser failed');
      // The local store lends the blob itself; a remote one must have deleted its download.
      expect(existsSync(seen)).toBe(storage.kind === 'local');
    });

    it('corrupt content is never served: reads fail with a checksum mismatch', async () => {
      const data = randomBytes(2_000);
      const { sha256 } = await storage.blobs.putBuffer(data);
      await it_.corrupt(sha256, randomBytes(2_000));
      await expect(storage.blobs.readBuffer(sha256)).rejects.toBeInstanceOf(ChecksumMismatchError);
      await expect(consume(storage.blobs.read(sha256))).rejects.toBeInstanceOf(ChecksumMismatchError);
      await storage.blobs.delete(sha256);
    });

    it('lists blobs and deletes them', async () => {
      const { sha256 } = await storage.blobs.putBuffer(randomBytes(100));
      expect((await listed(storage, sha256)).length).toBe(1);
      await storage.blobs.delete(sha256);
      expect(await storage.blobs.has(sha256)).toBe(false);
      expect(await listed(storage, sha256)).toEqual([]);
    });

    describe('packages', () => {
      const manifest = (text: string, assets: PackageManifest['assets'] = []): PackageManifest => ({
        schemaVersion: SCHEMA_VERSION,
        packageId: 'job_contract1',
        jobId: 'job_contract1',
        tenant: 't',
        source: { filename: 'a.txt', mediaType: 'text/plain', size: 5, sha256: '0'.repeat(64) },
        origin: { parser: 'test', version: '1', engine: 'text' },
        createdAt: '2026-01-01T00:00:00.000Z',
        text,
        markdown: text,
        blocks: [],
        assets,
      } as unknown as PackageManifest);

      it('writes, reads, indexes, lists, dates and deletes a package', async () => {
        const asset = await storage.blobs.putBuffer(Buffer.from('png bytes'));
        const assets = [{ sha256: asset.sha256, size: asset.size, mediaType: 'image/png', name: 'a.png' }] as unknown as PackageManifest['assets'];
        const written = await storage.packages.write(manifest('hello', assets));
        expect(written.packageId).toBe('job_contract1');
        const read = await storage.packages.read('job_contract1');
        expect(read?.text).toBe('hello');
        expect(sha(Buffer.from(`${JSON.stringify(read, null, 1)}\n`))).toBe(written.sha256);
        expect(await storage.packages.readIndex('job_contract1')).toEqual({ tenant: 't', source: '0'.repeat(64), assets });
        expect(await storage.packages.list()).toContain('job_contract1');
        expect(Math.abs(((await storage.packages.writtenAt('job_contract1')) ?? 0) - Date.now())).toBeLessThan(60_000);
        // Rewriting the same package leaves the same bytes (deterministic serialization).
        expect(await storage.packages.write(manifest('hello', assets))).toEqual(written);
        await storage.packages.delete('job_contract1');
        expect(await storage.packages.read('job_contract1')).toBeNull();
        expect(await storage.packages.readIndex('job_contract1')).toBeNull();
        expect(await storage.packages.writtenAt('job_contract1')).toBeUndefined();
        expect(await storage.packages.list()).not.toContain('job_contract1');
      });

      it('writes a large package as it serializes it: the bytes, size and sha256 of JSON.stringify(manifest, null, 1)', async () => {
        // Over the multipart threshold on S3, with surrogate pairs in a text longer than one piece.
        const text = `${'Seite mit Text und 𝄞 Noten. '.repeat(Math.ceil(it_.largeBytes / 28))}end`;
        const big = { ...manifest(text), body: Array.from({ length: 5_000 }, (_, i) => ({ type: 'paragraph', text: `paragraph ${i}`, page: i, bbox: [1, 2, 3, 4] })) } as unknown as PackageManifest;
        const expected = Buffer.from(`${JSON.stringify(big, null, 1)}\n`, 'utf8');
        expect(expected.length).toBeGreaterThan(it_.largeBytes);
        const written = await storage.packages.write(big);
        expect(written).toEqual({ packageId: 'job_contract1', size: expected.length, sha256: sha(expected) });
        const read = await storage.packages.read('job_contract1');
        expect(read?.text).toBe(text);
        expect(Buffer.from(`${JSON.stringify(read, null, 1)}\n`, 'utf8').equals(expected)).toBe(true);
        // Nothing is left of the file it was written through.
        for (const dir of storage.tmpDirs) expect((await readdir(dir)).filter((n) => n.includes('job_contract1'))).toEqual([]);
        await storage.packages.delete('job_contract1');
      });

      it('writes a package whose large fields were spilled to files as they were made: the bytes of the same manifest in memory', async () => {
        const text = `${'Seite mit Text und 𝄞 Noten. '.repeat(Math.ceil(it_.largeBytes / 28))}end`;
        const body = Array.from({ length: 5_000 }, (_, i) => ({ type: 'paragraph', text: `paragraph ${i} "q" \\ 中文 🙂`, page: i, bbox: [1, 2.5, 3, 4] }));
        const whole = { ...manifest(text), body, markdown: '', tables: [{ name: 'Table 1', rows: [['a', 'b'], ['1', '']] }], pages: [] } as unknown as PackageManifest;
        const expected = Buffer.from(`${JSON.stringify(whole, null, 1)}\n`, 'utf8');
        const spilled: Record<string, SpilledJson> = {};
        for (const [field, kind] of [['text', 'string'], ['markdown', 'string'], ['body', 'array'], ['tables', 'array'], ['pages', 'array']] as const) {
          spilled[field] = await SpilledJson.open(join(storage.spoolDir, `job_contract1.${field}.json`), kind);
        }
        // The text in pieces of odd lengths, so that pieces end inside words (never inside a surrogate pair: the caller's rule).
        for (let from = 0; from < text.length; ) {
          let to = Math.min(text.length, from + 7_777);
          if (to < text.length && text.charCodeAt(to - 1) >= 0xd800 && text.charCodeAt(to - 1) <= 0xdbff) to -= 1;
          await spilled.text!.push(text.slice(from, to));
          from = to;
        }
        for (const block of body) await spilled.body!.push(block);
        for (const table of whole.tables) await spilled.tables!.push(table);
        const streamed = Object.fromEntries(Object.entries(whole).map(([key, value]) => [key, spilled[key] ?? value])) as unknown as StreamedManifest;
        try {
          const written = await storage.packages.write(streamed);
          expect(written).toEqual({ packageId: 'job_contract1', size: expected.length, sha256: sha(expected) });
          const read = await storage.packages.read('job_contract1');
          expect(Buffer.from(`${JSON.stringify(read, null, 1)}\n`, 'utf8').equals(expected)).toBe(true);
        } finally {
          for (const file of Object.values(spilled)) await file.remove();
        }
        for (const dir of storage.tmpDirs) expect((await readdir(dir)).filter((n) => n.includes('job_contract1'))).toEqual([]);
        await storage.packages.delete('job_contract1');
      });

      it('refuses a package whose assets are not stored; unknown and invalid ids read as null', async () => {
        const assets = [{ sha256: sha(Buffer.from('absent asset')), size: 1, mediaType: 'image/png' }] as unknown as PackageManifest['assets'];
        await expect(storage.packages.write(manifest('x', assets))).rejects.toThrow(/not in the blob store/);
        expect(await storage.packages.read('job_contract1')).toBeNull();
        expect(await storage.packages.read('job_nothere1')).toBeNull();
        expect(await storage.packages.read('../../etc/passwd')).toBeNull();
        expect(await storage.packages.readIndex('bad id')).toBeNull();
      });
    });
  });
}
