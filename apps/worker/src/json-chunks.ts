import { Readable } from 'node:stream';
import { jsonChunks, oneOrMore, type BlobInfo, type BlobStore } from '@readpack/package-store';

/** The object's compact JSON as a byte stream, in chunks (package-store's jsonChunks: never one string in memory). */
export function jsonStream(value: object): Readable {
  return Readable.from(jsonChunks(value), { objectMode: false });
}

/**
 * Stores the object's JSON (the same bytes as jsonStream). What fits in one chunk — a small
 * document's extraction — is written as one buffer: a stream through the spool (a Transform, a
 * write stream, a pipeline) cost the extract consumer more CPU than the parse of a one-page DOCX.
 */
export async function putJson(blobs: BlobStore, value: object): Promise<BlobInfo> {
  const made = oneOrMore(jsonChunks(value));
  if (made.kind === 'one') return blobs.putBuffer(Buffer.from(made.json, 'utf8'));
  return blobs.putStream(Readable.from(made.chunks, { objectMode: false }));
}
