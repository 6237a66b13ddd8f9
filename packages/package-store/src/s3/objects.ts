import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ChecksumMismatchError, MissingObjectError, type S3Options, type SignedUrlOptions } from '../storage.js';

/** Object metadata of our own: the content's sha256 and size (x-amz-meta-sha256, x-amz-meta-size). */
const SHA_META = 'sha256';
const SIZE_META = 'size';

export interface ObjectHead {
  size: number;
  modifiedAt: number;
  sha256: string | undefined;
}

/**
 * The few object operations both S3 stores need, over one client. Integrity does not rely on the
 * SDK's flexible checksums (not every S3-compatible server, s3rver included, supports the newest
 * headers): we send our sha256 as object metadata and check it, and the content, on every read.
 */
export class S3Objects {
  readonly client: S3Client;

  constructor(readonly options: S3Options) {
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      // Checksums only where S3 requires them; ours is in the metadata (see above).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  key(name: string): string {
    return `${this.options.prefix}${name}`;
  }

  url(name: string): string {
    return `s3://${this.options.bucket}/${this.key(name)}`;
  }

  /**
   * The object, if it is there whole: S3 shows a write all at once, but some S3-compatible
   * servers (s3rver) write the body in place, so an object counts only once its length is the size
   * we recorded in its metadata.
   */
  async head(name: string): Promise<ObjectHead | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
      const size = out.ContentLength ?? 0;
      if (out.Metadata?.[SIZE_META] !== String(size)) return undefined;
      return { size, modifiedAt: out.LastModified?.getTime() ?? 0, sha256: out.Metadata[SHA_META] };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** One PUT: S3 makes the object visible whole or not at all. */
  async putBytes(name: string, bytes: Uint8Array, sha256 = createHash('sha256').update(bytes).digest('hex')): Promise<void> {
    await this.client.send(new PutObjectCommand({ ...this.writeParams(name, sha256, bytes.byteLength), Body: bytes, ContentLength: bytes.byteLength }));
  }

  /**
   * A local file, multipart when large (lib-storage's Upload: parts of the threshold size, four in
   * flight; its CompleteMultipartUpload makes the object appear at once, and a failure aborts the
   * upload so no parts are left billed). Checked by size afterwards.
   */
  async putFile(name: string, path: string, sha256: string): Promise<void> {
    const { size } = await stat(path);
    const params = this.writeParams(name, sha256, size);
    if (size < this.options.multipartThresholdBytes) {
      await this.client.send(new PutObjectCommand({ ...params, Body: createReadStream(path), ContentLength: size }));
    } else {
      const upload = new Upload({
        client: this.client,
        params: { ...params, Body: createReadStream(path) },
        partSize: this.options.multipartThresholdBytes,
        queueSize: 4,
        leavePartsOnError: false,
      });
      await upload.done();
    }
    const written = await this.head(name);
    if (written?.size !== size) throw new Error(`${this.url(name)}: stored ${written?.size ?? 'nothing'} bytes of ${size}`);
  }

  /** The object's bytes, checked against its sha256 metadata; undefined when there is none. */
  async getBytes(name: string): Promise<Buffer | undefined> {
    const got = await this.get(name);
    if (!got) return undefined;
    const bytes = Buffer.from(await got.body.transformToByteArray());
    const expected = got.sha256;
    if (expected !== undefined) {
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== expected) throw new ChecksumMismatchError(this.url(name), expected, actual);
    }
    return bytes;
  }

  /** A stream of the object (not verified here: callers know what it should hash to). */
  async getStream(name: string): Promise<Readable> {
    const got = await this.get(name);
    if (!got) throw new MissingObjectError(this.url(name));
    return got.body as unknown as Readable;
  }

  async *list(prefix: string): AsyncGenerator<{ name: string; modifiedAt: number }> {
    let token: string | undefined;
    const full = this.key(prefix);
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: full, ...(token === undefined ? {} : { ContinuationToken: token }) }),
      );
      for (const item of page.Contents ?? []) {
        if (item.Key !== undefined) yield { name: item.Key.slice(this.options.prefix.length), modifiedAt: item.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** Deleting a missing object succeeds in S3 already: nothing to ignore. */
  async delete(name: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
  }

  /** A presigned GET (SigV4 query string, @aws-sdk/s3-request-presigner) with response header overrides. */
  async signedGet(name: string, options: SignedUrlOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.key(name),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
      ResponseCacheControl: options.cacheControl,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.ttlSeconds });
  }

  destroy(): void {
    this.client.destroy();
  }

  private async get(name: string): Promise<{ body: Readable & { transformToByteArray(): Promise<Uint8Array> }; sha256: string | undefined } | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
      if (!out.Body) throw new Error(`${this.url(name)}: no body in the answer`);
      return { body: out.Body as unknown as Readable & { transformToByteArray(): Promise<Uint8Array> }, sha256: out.Metadata?.[SHA_META] };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private writeParams(name: string, sha256: string, size: number): Pick<PutObjectCommandInput, 'Bucket' | 'Key' | 'Metadata' | 'ServerSideEncryption' | 'SSEKMSKeyId'> {
    const { bucket, sse, sseKmsKeyId } = this.options;
    return {
      Bucket: bucket,
      Key: this.key(name),
      Metadata: { [SHA_META]: sha256, [SIZE_META]: String(size) },
      ...(sse === undefined ? {} : { ServerSideEncryption: sse }),
      ...(sseKmsKeyId === undefined ? {} : { SSEKMSKeyId: sseKmsKeyId }),
    };
  }
}

/**
 * GetObject answers NoSuchKey, HeadObject a bare 404 (NotFound): both mean "not there". Anything
 * else (NoSuchBucket, AccessDenied…) is a deployment problem and is not swallowed.
 */
export function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound';
}
