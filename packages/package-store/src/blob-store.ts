import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ignoreMissing, isMissing } from './missing.js';
import { spoolTo, tmpName, verifiedStream } from './spool.js';
import { checkSha256, ChecksumMismatchError, SHA256, type BlobInfo, type BlobLocation, type BlobStore, type SpooledBlob } from './storage.js';

/**
 * Content-addressed, immutable blobs on a local (or shared, e.g. NFS/volume) directory.
 * Every write goes to a temporary file in the same directory tree and is renamed into place, so a
 * reader never sees half a blob, and writing the same content twice is a no-op.
 * Layout: `<root>/<first two hex>/<sha256>`; `<root>/.tmp/` holds writes in progress.
 */
export class LocalBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(readonly root: string) {
    this.tmpDir = join(root, '.tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
  }

  get location(): BlobLocation {
    return { kind: 'local', root: this.root };
  }

  pathOf(sha256: string): string {
    return join(this.root, checkSha256(sha256).slice(0, 2), sha256);
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
      // Absent a moment ago: another writer of the same content in between is the harmless race of moveIntoPlace.
      await this.renameIntoPlace(tmp, sha256);
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
  async spool(source: Readable, limitBytes = Number.POSITIVE_INFINITY, keepBytes = 0): Promise<SpooledBlob> {
    return spoolTo(this.tmpDir, source, limitBytes, keepBytes);
  }

  /** Takes a spooled file into the store under its hash (a rename: same filesystem). */
  async adopt(path: string, sha256: string): Promise<void> {
    await this.moveIntoPlace(path, sha256);
  }

  /** Verified against the sha256 as it streams: a corrupt file ends in an error, not a clean end. */
  read(sha256: string): Readable {
    return verifiedStream(createReadStream(this.pathOf(sha256)), sha256, this.pathOf(sha256));
  }

  async readBuffer(sha256: string): Promise<Buffer> {
    const bytes = await readFile(this.pathOf(sha256));
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) throw new ChecksumMismatchError(this.pathOf(sha256), sha256, actual);
    return bytes;
  }

  /** Through a temporary name: a reader of `path` never sees half a copy. */
  async copyTo(sha256: string, path: string): Promise<void> {
    const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await copyFile(this.pathOf(sha256), partial);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  /** The stored file itself: immutable, and the janitor spares blobs a live job references. */
  async withLocalFile<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T> {
    // Checked first so that a missing blob fails here, alike for every store, not inside `use`.
    await stat(this.pathOf(sha256));
    return use(this.pathOf(sha256));
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
    return tmpName(this.tmpDir);
  }

  private async moveIntoPlace(tmp: string, sha256: string): Promise<void> {
    if (await this.has(sha256)) {
      await rm(tmp, { force: true });
      return;
    }
    await this.renameIntoPlace(tmp, sha256);
  }

  /**
   * rename() replaces atomically; two writers of the same content race harmlessly. The shard
   * directory is made only when the rename finds it missing: once per shard rather than a mkdir
   * per blob (one in six filesystem calls of a small document's writes).
   */
  private async renameIntoPlace(tmp: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    try {
      await rename(tmp, target);
    } catch (error) {
      if (!isMissing(error)) throw error;
      await mkdir(join(this.root, sha256.slice(0, 2)), { recursive: true });
      await rename(tmp, target);
    }
  }
}
