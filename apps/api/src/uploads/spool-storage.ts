import { rm } from 'node:fs/promises';
import type { Request } from 'express';
import multer from 'multer';
import type { BlobStore } from '@readpack/package-store';

/** A multipart file after spooling: on disk, hashed, not yet accepted; a small one also in memory. */
export interface SpooledFile {
  fieldname: string;
  originalname: string;
  path: string;
  size: number;
  sha256: string;
  /** The whole file, when it is at most IN_MEMORY_BYTES: inspected without reading the file again. */
  bytes?: Buffer;
}

/**
 * Uploads up to this size are kept in memory as well as spooled (at most this much per upload in
 * flight), so that sniffing their type costs no file open, reads and close: for a one-page document
 * those were a good part of the API's CPU per upload (bench:cpu-per-doc).
 */
const IN_MEMORY_BYTES = 64 * 1024;

/**
 * Multer storage that streams each file part to the blob store's spool while hashing it, so an
 * upload never sits whole in memory and its sha256 is known without a second read.
 */
export function spoolStorage(blobs: BlobStore, limitBytes: number): multer.StorageEngine {
  return {
    _handleFile(_req: Request, file, callback) {
      blobs.spool(file.stream, limitBytes, IN_MEMORY_BYTES).then(
        ({ path, size, sha256, bytes }) => callback(null, { path, size, sha256, bytes } as Partial<Express.Multer.File>),
        (error: Error) => callback(error),
      );
    },
    _removeFile(_req: Request, file, callback) {
      rm(file.path, { force: true }).then(() => callback(null), callback);
    },
  };
}

/** Multer's file objects carry our extra `sha256` and `bytes`; this is the one place that knows. */
export function asSpooled(file: Express.Multer.File): SpooledFile {
  const { fieldname, originalname, path, size } = file;
  const { sha256, bytes } = file as Express.Multer.File & { sha256: string; bytes?: Buffer };
  return { fieldname, originalname, path, size, sha256, ...(bytes ? { bytes } : {}) };
}

export async function discard(files: SpooledFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}
