import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ignoreMissing } from './missing.js';

export interface BlobInfo {
  sha256: string;
  size: number;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Content-addressed, immutable blobs on a local (or shared, e.g. NFS/volume) directory.
 * Every write goes to a temporary file in the same directory tree and is renamed into place, so a
 * reader never sees half a blob, and writing the same content twice is a no-op.
 * Layout: `<root>/<first two hex>/<sha256>`; `<root>/.tmp/` holds writes in progress.
 */
export class LocalBlobStore {
  private readonly tmpDir: string;

  constructor(readonly root: string) {
    this.tmpDir = join(root, '.tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
  }

  pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Only a missing file means "no": a blob we cannot stat (EACCES, EIO) is an error, not absent. */
  async has(sha256: string): Promise<boolean> {
    return stat(this.pathOf(sha256)).then(() => true, ignoreMissing(false));
  }

  async size(sha256: string): Promise<number | undefined> {
    return stat(this.pathOf(sha256)).then((s) => s.size, ignoreMissing(undefined));
  }

  async putBuffer(data: Uint8Array): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(data).digest('hex');
    if (!(await this.has(sha256))) {
      const tmp = this.tmpPath();
      await writeFile(tmp, data);
      await this.moveIntoPlace(tmp, sha256);
    }
    return { sha256, size: data.byteLength };
  }

  /** Streams into the store while hashing; see `spool` for the limit. */
  async putStream(source: Readable, limitBytes = Number.POSITIVE_INFINITY): Promise<BlobInfo> {
    const spooled = await this.spool(source, limitBytes);
    await this.adopt(spooled.path, spooled.sha256);
    return { sha256: spooled.sha256, size: spooled.size };
  }

  /**
   * Writes a stream to a temporary file on the store's filesystem while hashing it, without
   * adding it to the store yet (an upload is inspected before it is accepted). A stream growing
   * past `limitBytes` is aborted with `BlobTooLargeError` and its partial file removed.
   */
  async spool(source: Readable, limitBytes = Number.POSITIVE_INFINITY): Promise<BlobInfo & { path: string }> {
    const path = this.tmpPath();
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > limitBytes) return callback(new BlobTooLargeError(limitBytes));
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(path, { flags: 'wx' }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return { path, sha256: hash.digest('hex'), size };
  }

  /** Takes a spooled file into the store under its hash (a rename: same filesystem). */
  async adopt(path: string, sha256: string): Promise<void> {
    await this.moveIntoPlace(path, sha256);
  }

  read(sha256: string): Readable {
    return createReadStream(this.pathOf(sha256));
  }

  async readBuffer(sha256: string): Promise<Buffer> {
    return readFile(this.pathOf(sha256));
  }

  /** Every stored blob with its write time (for the janitor's mark and sweep). */
  async *list(): AsyncGenerator<{ sha256: string; modifiedAt: number }> {
    for (const shard of await readdir(this.root).catch(ignoreMissing([] as string[]))) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await readdir(join(this.root, shard)).catch(ignoreMissing([] as string[]))) {
        if (!SHA256.test(name)) continue;
        // Deleted since the directory was read: the expected race with another janitor.
        const info = await stat(join(this.root, shard, name)).catch(ignoreMissing(undefined));
        if (info) yield { sha256: name, modifiedAt: info.mtimeMs };
      }
    }
  }

  get tmpDirectory(): string {
    return this.tmpDir;
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  /** A fresh temporary path on the store's filesystem (renames stay atomic). */
  tmpPath(): string {
    return join(this.tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  private async moveIntoPlace(tmp: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    if (await this.has(sha256)) {
      await rm(tmp, { force: true });
      return;
    }
    await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true });
    // rename() replaces atomically; two writers of the same content race harmlessly.
    await rename(tmp, target);
  }
}

export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`content exceeds ${limitBytes} bytes`);
  }
}
