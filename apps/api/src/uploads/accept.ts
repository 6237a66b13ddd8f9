import { sniffMediaType } from '@readpack/media';
import type { Storage } from '@readpack/package-store';
import type { SourceRef } from '@readpack/queues';
import { ApiError } from '../http/errors.js';
import { discard, type SpooledFile } from './spool-storage.js';

/**
 * Decides whether spooled files can be parsed, by their bytes. All or nothing: if any file is
 * refused, every spooled file is removed and nothing is stored or enqueued. Accepted files move
 * into the content-addressed blob store and are described by a `SourceRef` for the job payload.
 */
export async function acceptFiles(storage: Storage, files: SpooledFile[]): Promise<SourceRef[]> {
  try {
    const sources: SourceRef[] = [];
    for (const [index, file] of files.entries()) {
      if (file.size === 0) throw new ApiError(400, 'empty_file', `File ${describe(file, index)} is empty.`, { index });
      const sniffed = await sniffMediaType(file.path, file.originalname);
      if (!sniffed.supported) {
        throw new ApiError(415, 'unsupported_media_type', `File ${describe(file, index)} is ${sniffed.detected}, which Readpack cannot parse.`, {
          index,
          detected: sniffed.detected,
        });
      }
      sources.push({ sha256: file.sha256, filename: displayName(file.originalname), mediaType: sniffed.mediaType, size: file.size });
    }
    for (const file of files) await storage.blobs.adopt(file.path, file.sha256);
    return sources;
  } catch (error) {
    await discard(files);
    throw error;
  }
}

function describe(file: SpooledFile, index: number): string {
  return JSON.stringify(displayName(file.originalname) || `#${index}`);
}

/**
 * The name we store and show: no path (a client may send `../../x.pdf`), no control characters,
 * bounded length. Multer hands us the raw header value decoded as latin1; browsers send UTF-8.
 */
export function displayName(raw: string): string {
  const utf8 = Buffer.from(raw, 'latin1').toString('utf8');
  const name = (utf8.includes('\uFFFD') ? raw : utf8)
    .split(/[\\/]/)
    .pop()!
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .trim();
  return [...name].slice(0, 255).join('') || 'upload';
}
