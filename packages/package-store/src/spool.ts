import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ChecksumMismatchError, type SpooledBlob } from './storage.js';

export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`content exceeds ${limitBytes} bytes`);
  }
}

/** A fresh name in `dir`, sortable by creation time. */
export function tmpName(dir: string): string {
  return join(dir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
}

/**
 * Writes a stream to a new file in `dir` while hashing it. A stream growing past `limitBytes` is
 * aborted with BlobTooLargeError; any failure removes the partial file. A stream of at most
 * `keepBytes` is also returned in memory (`bytes`).
 */
export async function spoolTo(dir: string, source: Readable, limitBytes = Number.POSITIVE_INFINITY, keepBytes = 0): Promise<SpooledBlob> {
  const path = tmpName(dir);
  const hash = createHash('sha256');
  let size = 0;
  let kept: Buffer[] | undefined = keepBytes > 0 ? [] : undefined;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limitBytes) return callback(new BlobTooLargeError(limitBytes));
      hash.update(chunk);
      if (kept && size <= keepBytes) kept.push(chunk);
      else kept = undefined;
      callback(null, chunk);
    },
  });
  const out = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(source, meter, out);
  } catch (error) {
    // pipeline rejects at the first error, while the file may still be being opened: removing it
    // before the write stream has closed would leave the file it then creates behind.
    if (!out.closed) await new Promise<void>((done) => out.once('close', () => done()));
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size, ...(kept ? { bytes: Buffer.concat(kept, size) } : {}) };
}

/**
 * Passes bytes through while hashing them, and fails the stream at its end if the content is not
 * `expected`: a reader gets an error instead of a clean end for corrupt content.
 */
export function verifying(expected: string, onMismatch: (actual: string) => Error): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      const actual = hash.digest('hex');
      callback(actual === expected ? null : onMismatch(actual));
    },
  });
}

/** `source` checked against `sha256`; any error (missing, mismatch) is an error of the returned stream. */
export function verifiedStream(source: Readable, sha256: string, where: string): Readable {
  const out = new PassThrough();
  pipeline(source, verifying(sha256, (actual) => new ChecksumMismatchError(where, sha256, actual)), out).catch((error: unknown) => out.destroy(error as Error));
  return out;
}
