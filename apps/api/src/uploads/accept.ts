import { sniffMediaType } from '@readpack/media';
import type { Storage } from '@readpack/package-store';
import type { ConverterInfo, SourceRef } from '@readpack/queues';
import { ApiError } from '../http/errors.js';
import type { SpooledFile } from './spool-storage.js';
import { displayName, originalName } from './filenames.js';

/** A file Readpack will parse: its payload description and the name exactly as the client sent it. */
export interface AcceptedFile {
  source: SourceRef;
  originalFilename: string;
}

/**
 * Decides whether spooled files can be parsed, by their bytes (the sniffed type wins over the
 * name and the declared type). All or nothing: the first refused file refuses the request, and
 * the caller discards every spooled file. Nothing is stored yet (see storeFiles).
 */
export async function inspectFiles(files: SpooledFile[], converter: () => Promise<ConverterInfo | undefined>): Promise<AcceptedFile[]> {
  const accepted: AcceptedFile[] = [];
  let converterKnown: ConverterInfo | undefined | null = null; // read once per request, when needed
  for (const [index, file] of files.entries()) {
    if (file.size === 0) throw new ApiError(400, 'empty_file', `File ${describe(file, index)} is empty.`, { index });
    const sniffed = await sniffMediaType(file.path, file.originalname, file.bytes);
    if (!sniffed.supported) {
      throw new ApiError(415, 'unsupported_media_type', `File ${describe(file, index)} is ${sniffed.detected}, which Readpack cannot parse.`, {
        index,
        detected: sniffed.detected,
      });
    }
    if (sniffed.kind === 'convert') {
      // Read through LibreOffice only: refused now rather than left waiting for a converter that
      // is not running. Availability is what the convert consumers publish in Redis, so every API
      // process answers alike.
      if (converterKnown === null) converterKnown = await converter();
      if (!converterKnown) {
        throw new ApiError(
          415,
          'converter_unavailable',
          `File ${describe(file, index)} is ${sniffed.mediaType}, which Readpack reads by converting it to PDF with LibreOffice, and conversion is not available on this deployment (no convert consumer is running).`,
          { index, detected: sniffed.mediaType },
        );
      }
    }
    accepted.push({
      source: { sha256: file.sha256, filename: displayName(file.originalname), mediaType: sniffed.mediaType, size: file.size },
      originalFilename: originalName(file.originalname),
    });
  }
  return accepted;
}

/** Moves accepted files into the content-addressed blob store. */
export async function storeFiles(storage: Storage, files: SpooledFile[]): Promise<void> {
  for (const file of files) await storage.blobs.adopt(file.path, file.sha256);
}

function describe(file: SpooledFile, index: number): string {
  return JSON.stringify(displayName(file.originalname) || `#${index}`);
}
