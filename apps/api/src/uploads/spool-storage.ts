import { rm } from 'node:fs/promises';
import type { Request } from 'express';
import multer from 'multer';
import type { BlobStore } from '@readpack/package-store';

/** A multipart file after spooling: on disk (not in memory), hashed, not yet accepted. */
export interface SpooledFile {
  fieldname: string;
  originalname: string;
  path: string;
  size: number;
  sha256: string;
}

/**
 * Multer storage that streams each file part to the blob store's spool while hashing it, so an
 * upload never sits whole in memory and its sha256 is known without a second read.
 */
export function spoolStorage(blobs: BlobStore, limitBytes: number): multer.StorageEngine {
  return {
    _handleFile(_req: Request, file, callback) {
      blobs.spool(file.stream, limitBytes).then(
        ({ path, size, sha256 }) => callback(null, { path, size, sha256 } as Partial<Express.Multer.File>),
        (error: Error) => callback(error),
      );
    },
    _removeFile(_req: Request, file, callback) {
      rm(file.path, { force: true }).then(() => callback(null), callback);
    },
  };
}

/** Multer's file objects carry our extra `sha256`; this is the one place that knows. */
export function asSpooled(file: Express.Multer.File): SpooledFile {
  const { fieldname, originalname, path, size } = file;
  return { fieldname, originalname, path, size, sha256: (file as Express.Multer.File & { sha256: string }).sha256 };
}

export async function discard(files: SpooledFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}
