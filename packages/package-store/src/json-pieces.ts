import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import type { PackageManifest } from './manifest.js';

/** Chunks are gathered up to this size before they are handed on: one block each would be thousands of tiny writes. */
const CHUNK_CHARS = 64 * 1024;

/** A string longer than this is written in pieces of this size: a 10,000-page document's text is ~40 MB. */
const STRING_PIECE_CHARS = 1024 * 1024;

/**
 * `JSON.stringify(value, null, indent)` of a plain object, in chunks of about CHUNK_CHARS: its
 * top-level arrays one element at a time and its long top-level strings in pieces, so that a
 * large extraction or package (a 10,000-page PDF's is over 100 MB) is written without ever being
 * one string, and one buffer of it, in memory. The bytes are JSON.stringify's, exactly (tested):
 * a package's sha256 does not depend on how it was written.
 */
export function* jsonChunks(value: object, indent: 0 | 1 = 0): Generator<string> {
  let pending = '';
  for (const piece of jsonPieces(value, indent)) {
    pending += piece;
    if (pending.length >= CHUNK_CHARS) {
      yield pending;
      pending = '';
    }
  }
  if (pending !== '') yield pending;
}

function* jsonPieces(value: object, indent: 0 | 1): Generator<string> {
  // JSON.stringify(v, null, 1) puts each nesting level one space further in; a value that sits
  // `depth` levels down is its own pretty JSON with `depth` more spaces after each line break
  // (JSON strings hold no raw line breaks, so every '\n' in it is layout).
  const nested = (json: string, depth: number): string => (indent === 0 ? json : json.replace(/\n/g, `\n${' '.repeat(depth)}`));
  const colon = indent === 0 ? ':' : ': ';
  const lineAt = (depth: number): string => (indent === 0 ? '' : `\n${' '.repeat(depth)}`);
  let first = true;
  yield '{';
  for (const [key, field] of Object.entries(value)) {
    const isArray = Array.isArray(field);
    const isLongString = typeof field === 'string' && field.length > STRING_PIECE_CHARS;
    const whole = isArray || isLongString ? undefined : (JSON.stringify(field, null, indent) as string | undefined);
    if (!isArray && !isLongString && whole === undefined) continue;
    yield `${first ? '' : ','}${lineAt(1)}${JSON.stringify(key)}${colon}`;
    first = false;
    if (isLongString) yield* stringPieces(field);
    else if (!isArray) yield nested(whole!, 1);
    else if (field.length === 0) yield '[]';
    else {
      yield '[';
      for (let i = 0; i < field.length; i += 1) {
        const element = (JSON.stringify(field[i], null, indent) as string | undefined) ?? 'null';
        yield `${i === 0 ? '' : ','}${lineAt(2)}${nested(element, 2)}`;
      }
      yield `${lineAt(1)}]`;
    }
  }
  yield first ? '}' : `${lineAt(0)}}`;
}

/**
 * A string's JSON in pieces. A piece never ends between the two halves of a surrogate pair:
 * JSON.stringify writes a lone surrogate as an escape, so a split pair would change the bytes.
 */
function* stringPieces(text: string): Generator<string> {
  yield '"';
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + STRING_PIECE_CHARS);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to -= 1;
    yield JSON.stringify(text.slice(from, to)).slice(1, -1);
    from = to;
  }
  yield '"';
}

/**
 * A serialization that is one chunk (a small document: written as one buffer, which costs less
 * than any stream), or the chunks of a larger one, in order.
 */
export function oneOrMore(chunks: Iterator<string>): { kind: 'one'; json: string } | { kind: 'more'; chunks: Generator<string> } {
  const first = chunks.next();
  const second = first.done ? first : chunks.next();
  if (second.done) return { kind: 'one', json: first.done ? '' : first.value };
  const all = function* (): Generator<string> {
    yield first.value as string;
    yield second.value;
    for (let next = chunks.next(); !next.done; next = chunks.next()) yield next.value;
  };
  return { kind: 'more', chunks: all() };
}

/** A JSON document's bytes, once made: in memory when they were one chunk (most documents), else in the file they were written to as they were made. */
export type MadeJson = { kind: 'buffer'; bytes: Buffer; size: number; sha256: string } | { kind: 'file'; path: string; size: number; sha256: string };

/**
 * Makes the bytes of `chunks` followed by `trailer`, hashed as they go. One chunk stays one
 * buffer; more are written to `spillPath` (created, or left absent on failure), so a large
 * document is never whole in memory.
 */
export async function makeJson(chunks: Iterator<string>, trailer: string, spillPath: string): Promise<MadeJson> {
  const made = oneOrMore(chunks);
  if (made.kind === 'one') {
    const bytes = Buffer.from(`${made.json}${trailer}`, 'utf8');
    return { kind: 'buffer', bytes, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  const hash = createHash('sha256');
  let size = 0;
  const file = await open(spillPath, 'wx');
  try {
    try {
      const write = async (text: string): Promise<void> => {
        const bytes = Buffer.from(text, 'utf8');
        hash.update(bytes);
        size += bytes.length;
        await file.write(bytes);
      };
      for (const chunk of made.chunks) await write(chunk);
      await write(trailer);
    } finally {
      await file.close();
    }
  } catch (error) {
    await rm(spillPath, { force: true });
    throw error;
  }
  return { kind: 'file', path: spillPath, size, sha256: hash.digest('hex') };
}

/**
 * Packages with less text and Markdown than this are serialized by one JSON.stringify call: the
 * same bytes as in chunks, for less CPU (a one-page document is most uploads). A page's OCR lines
 * and boxes grow with its text, so the text is what the size of a package follows.
 */
const ONE_CALL_TEXT_CHARS = 256 * 1024;

/** Whether `serialized(manifest)` is best made in one call (a small package) rather than in chunks. */
export function isSmallPackage(manifest: Pick<PackageManifest, 'text' | 'markdown'>): boolean {
  return manifest.text.length + manifest.markdown.length < ONE_CALL_TEXT_CHARS;
}

/** A manifest's stored bytes: `JSON.stringify(manifest, null, 1)` and a line break (its sha256 is of these). */
export function makeManifestJson(manifest: PackageManifest, spillPath: string): Promise<MadeJson> {
  const chunks = isSmallPackage(manifest) ? [JSON.stringify(manifest, null, 1)].values() : jsonChunks(manifest, 1);
  return makeJson(chunks, '\n', spillPath);
}
