import { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '@readpack/package-store';

/** Chunks are gathered up to this size before they are written: one block each would be thousands of tiny writes. */
const CHUNK_CHARS = 64 * 1024;

/**
 * `JSON.stringify(value)` of a plain object, in pieces: its top-level arrays one element at a
 * time, so that a large extraction (a 10,000-page PDF's is over 100 MB) is written without ever
 * being one string and one buffer in memory.
 */
export function* jsonChunks(value: object): Generator<string> {
  let pending = '{';
  let first = true;
  const flushing = function* (piece: string): Generator<string> {
    pending += piece;
    if (pending.length >= CHUNK_CHARS) {
      yield pending;
      pending = '';
    }
  };
  for (const [key, field] of Object.entries(value)) {
    const whole = Array.isArray(field) ? undefined : (JSON.stringify(field) as string | undefined);
    if (!Array.isArray(field) && whole === undefined) continue;
    yield* flushing(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(field)) {
      yield* flushing(whole!);
      continue;
    }
    yield* flushing('[');
    for (let i = 0; i < field.length; i += 1) yield* flushing(`${i === 0 ? '' : ','}${(JSON.stringify(field[i]) as string | undefined) ?? 'null'}`);
    yield* flushing(']');
  }
  yield `${pending}}`;
}

/** The object as a JSON byte stream (see jsonChunks). */
export function jsonStream(value: object): Readable {
  return Readable.from(jsonChunks(value), { objectMode: false });
}

/**
 * Stores the object's JSON (the same bytes as jsonStream). What fits in one chunk — a small
 * document's extraction — is written as one buffer: a stream through the spool (a Transform, a
 * write stream, a pipeline) cost the extract consumer more CPU than the parse of a one-page DOCX.
 */
export async function putJson(blobs: BlobStore, value: object): Promise<BlobInfo> {
  const chunks = jsonChunks(value);
  const first = chunks.next();
  const second = first.done ? first : chunks.next();
  if (!first.done && second.done) return blobs.putBuffer(Buffer.from(first.value, 'utf8'));
  const all = function* (): Generator<string> {
    if (!first.done) yield first.value;
    if (!second.done) yield second.value;
    yield* chunks;
  };
  return blobs.putStream(Readable.from(all(), { objectMode: false }));
}
