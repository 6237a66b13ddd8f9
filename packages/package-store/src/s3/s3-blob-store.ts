import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LocalCopies } from '../local-copies.js';
import { spoolTo, verifiedStream } from '../spool.js';
import { checkSha256, SHA256, type BlobInfo, type BlobLocation, type BlobStore, type S3Options, type SignedUrlOptions, type SpooledBlob } from '../storage.js';
import { S3Objects } from './objects.js';

/**
 * Blobs as objects `<prefix>blobs/<first two hex>/<sha256>`, each with its sha256 in its metadata.
 * S3 writes are atomic (an object appears whole or not at all), so no temporary keys: a write of
 * content already stored is skipped after a HEAD, and two writers racing on the same content
 * write identical bytes. Spooling happens in `spoolDir`, this process's own local directory.
 */
export class S3BlobStore implements BlobStore {
  readonly location: BlobLocation;
  private readonly copies: LocalCopies;

  constructor(
    readonly objects: S3Objects,
    private readonly spoolDir: string,
  ) {
    this.location = { kind: 's3', s3: objects.options, spoolDir };
    this.copies = new LocalCopies((sha256, path) => this.copyTo(sha256, path));
  }

  static open(options: S3Options, spoolDir: string): S3BlobStore {
    return new S3BlobStore(new S3Objects(options), spoolDir);
  }

  async init(): Promise<void> {
    await mkdir(this.spoolDir, { recursive: true });
  }

  get root(): string {
    return this.objects.url('blobs');
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.objects.head(name(sha256))) !== undefined;
  }

  async size(sha256: string): Promise<number | undefined> {
    return (await this.objects.head(name(sha256)))?.size;
  }

  async putBuffer(data: Uint8Array): Promise<BlobInfo> {
    const sha256 = createHash('sha256').update(data).digest('hex');
    if (!(await this.has(sha256))) await this.objects.putBytes(name(sha256), data, sha256);
    return { sha256, size: data.byteLength };
  }

  async putStream(source: Readable, limitBytes = Number.POSITIVE_INFINITY): Promise<BlobInfo> {
    // The key is the hash, known only at the end: the bytes wait in the local spool meanwhile.
    const spooled = await this.spool(source, limitBytes);
    await this.adopt(spooled.path, spooled.sha256);
    return { sha256: spooled.sha256, size: spooled.size };
  }

  async spool(source: Readable, limitBytes = Number.POSITIVE_INFINITY, keepBytes = 0): Promise<SpooledBlob> {
    return spoolTo(this.spoolDir, source, limitBytes, keepBytes);
  }

  async adopt(path: string, sha256: string): Promise<void> {
    try {
      if (!(await this.has(sha256))) await this.objects.putFile(name(sha256), path, sha256);
    } finally {
      await rm(path, { force: true });
    }
  }

  read(sha256: string): Readable {
    const out = new PassThrough();
    const where = this.objects.url(name(sha256));
    this.objects.getStream(name(sha256)).then(
      (body) => verifiedStream(body, sha256, where).on('error', (error) => out.destroy(error)).pipe(out),
      (error: unknown) => out.destroy(error as Error),
    );
    return out;
  }

  async readBuffer(sha256: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.read(sha256)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async copyTo(sha256: string, path: string): Promise<void> {
    const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(this.read(sha256), createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async withLocalFile<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T> {
    checkSha256(sha256);
    return this.copies.with(sha256, use);
  }

  async *list(): AsyncGenerator<{ sha256: string; modifiedAt: number }> {
    for await (const item of this.objects.list('blobs/')) {
      const sha256 = item.name.slice(item.name.lastIndexOf('/') + 1);
      if (SHA256.test(sha256) && item.name === name(sha256)) yield { sha256, modifiedAt: item.modifiedAt };
    }
  }

  async delete(sha256: string): Promise<void> {
    await this.objects.delete(name(sha256));
  }

  async signedUrl(sha256: string, options: SignedUrlOptions): Promise<string> {
    return this.objects.signedGet(name(sha256), options);
  }
}

function name(sha256: string): string {
  checkSha256(sha256);
  return `blobs/${sha256.slice(0, 2)}/${sha256}`;
}
