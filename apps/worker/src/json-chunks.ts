import { Readable } from 'node:stream';

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
