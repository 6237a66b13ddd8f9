import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
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
export function jsonChunks(value: object, indent: 0 | 1 = 0): Generator<string> {
  return jsonChunksOf(jsonPieces(value, indent));
}

function* jsonPieces(value: object, indent: 0 | 1): Generator<string> {
  let first = true;
  yield '{';
  for (const [key, field] of Object.entries(value)) {
    const pieces = fieldPieces(field, indent);
    if (!pieces) continue;
    yield `${first ? '' : ','}${lineAt(1, indent)}${JSON.stringify(key)}${indent === 0 ? ':' : ': '}`;
    first = false;
    yield* pieces;
  }
  yield first ? '}' : `${lineAt(0, indent)}}`;
}

const lineAt = (depth: number, indent: 0 | 1): string => (indent === 0 ? '' : `\n${' '.repeat(depth)}`);

// JSON.stringify(v, null, 1) puts each nesting level one space further in; a value that sits
// `depth` levels down is its own pretty JSON with `depth` more spaces after each line break
// (JSON strings hold no raw line breaks, so every '\n' in it is layout).
const nested = (json: string, depth: number, indent: 0 | 1): string => (indent === 0 ? json : json.replace(/\n/g, `\n${' '.repeat(depth)}`));

/** A top-level field's JSON in pieces (arrays an element at a time, long strings in pieces); undefined for what JSON.stringify leaves out. */
function fieldPieces(field: unknown, indent: 0 | 1): Iterable<string> | undefined {
  if (Array.isArray(field)) return arrayPieces(field, indent);
  if (typeof field === 'string' && field.length > STRING_PIECE_CHARS) return stringPieces(field);
  const whole = JSON.stringify(field, null, indent) as string | undefined;
  return whole === undefined ? undefined : [nested(whole, 1, indent)];
}

function* arrayPieces(field: readonly unknown[], indent: 0 | 1): Generator<string> {
  if (field.length === 0) {
    yield '[]';
    return;
  }
  yield '[';
  for (let i = 0; i < field.length; i += 1) yield elementPiece(field[i], i, indent);
  yield `${lineAt(1, indent)}]`;
}

/** The `i`th element of a top-level array, with the comma and layout before it. */
function elementPiece(element: unknown, i: number, indent: 0 | 1): string {
  const json = (JSON.stringify(element, null, indent) as string | undefined) ?? 'null';
  return `${i === 0 ? '' : ','}${lineAt(2, indent)}${nested(json, 2, indent)}`;
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
  return writeHashed(spillPath, async (write) => {
    for (const chunk of made.chunks) await write(Buffer.from(chunk, 'utf8'));
    await write(Buffer.from(trailer, 'utf8'));
  });
}

/**
 * Creates `spillPath` and fills it through `write`, hashing and counting the bytes as they go;
 * on failure the file is removed. The one way a JSON document too large to hold is made.
 */
async function writeHashed(spillPath: string, fill: (write: (bytes: Buffer) => Promise<void>) => Promise<void>): Promise<MadeJson> {
  const hash = createHash('sha256');
  let size = 0;
  const file = await open(spillPath, 'wx');
  try {
    try {
      await fill(async (bytes) => {
        hash.update(bytes);
        size += bytes.length;
        await file.write(bytes);
      });
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
export function makeManifestJson(manifest: PackageManifest | StreamedManifest, spillPath: string): Promise<MadeJson> {
  if (isStreamed(manifest)) return makeStreamedJson(manifest, spillPath);
  const chunks = isSmallPackage(manifest) ? [JSON.stringify(manifest, null, 1)].values() : jsonChunks(manifest, 1);
  return makeJson(chunks, '\n', spillPath);
}

/**
 * A top-level field of a package too large to hold (a parted document's text, Markdown, blocks,
 * tables or pages), written as it is made to a file of its own, as its JSON at the depth it has
 * in the manifest: `JSON.stringify(manifest, null, 1)`'s bytes for it, exactly. `push` takes an
 * array's next element, or a string's next piece (never half of a surrogate pair: it is escaped
 * alone). `close` ends it; the manifest's write then copies it in (makeManifestJson).
 */
export class SpilledJson {
  private pending = '';
  private count = 0;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
    readonly kind: 'array' | 'string',
  ) {}

  static async open(path: string, kind: 'array' | 'string'): Promise<SpilledJson> {
    const spilled = new SpilledJson(path, await open(path, 'wx'), kind);
    spilled.pending = kind === 'array' ? '[' : '"';
    return spilled;
  }

  /** Whether anything was pushed (for a string: anything but empty pieces). */
  get empty(): boolean {
    return this.count === 0;
  }

  async push(value: unknown): Promise<void> {
    if (this.kind === 'string') {
      if (typeof value !== 'string') throw new TypeError('a spilled string takes strings');
      if (value === '') return;
      this.pending += JSON.stringify(value).slice(1, -1);
    } else {
      this.pending += elementPiece(value, this.count, 1);
    }
    this.count += 1;
    if (this.pending.length >= CHUNK_CHARS) await this.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.pending += this.kind === 'string' ? '"' : this.count === 0 ? ']' : `${lineAt(1, 1)}]`;
    await this.flush();
    await this.file.close();
    this.closed = true;
  }

  /** Closes (if open) and deletes the file. */
  async remove(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.file.close();
    }
    await rm(this.path, { force: true });
  }

  private async flush(): Promise<void> {
    if (this.pending === '') return;
    await this.file.write(Buffer.from(this.pending, 'utf8'));
    this.pending = '';
  }
}

/** The fields of a package that a parted document writes as SpilledJson; the others are values as in PackageManifest. */
export type SpilledField = 'text' | 'markdown' | 'body' | 'tables' | 'pages';

/** A manifest whose largest fields are SpilledJson files, in the key order of the manifest it stands for. */
export type StreamedManifest = Omit<PackageManifest, SpilledField> & { text: SpilledJson; markdown: SpilledJson; body: SpilledJson; tables: SpilledJson; pages?: SpilledJson };

function isStreamed(manifest: PackageManifest | StreamedManifest): manifest is StreamedManifest {
  return manifest.text instanceof SpilledJson;
}

/** A streamed manifest's bytes (as makeManifestJson's), written to `spillPath` from its fields and their files. */
async function makeStreamedJson(manifest: StreamedManifest, spillPath: string): Promise<MadeJson> {
  return writeHashed(spillPath, async (write) => {
    let first = true;
    await write(Buffer.from('{'));
    for (const [key, field] of Object.entries(manifest)) {
      const pieces = field instanceof SpilledJson ? undefined : fieldPieces(field, 1);
      if (!(field instanceof SpilledJson) && !pieces) continue;
      await write(Buffer.from(`${first ? '' : ','}${lineAt(1, 1)}${JSON.stringify(key)}: `, 'utf8'));
      first = false;
      if (field instanceof SpilledJson) {
        await field.close();
        for await (const bytes of createReadStream(field.path)) await write(bytes as Buffer);
      } else {
        for (const chunk of jsonChunksOf(pieces!)) await write(Buffer.from(chunk, 'utf8'));
      }
    }
    await write(Buffer.from(`${first ? '}' : `${lineAt(0, 1)}}`}\n`, 'utf8'));
  });
}

/** Pieces gathered into chunks of about CHUNK_CHARS. */
function* jsonChunksOf(pieces: Iterable<string>): Generator<string> {
  let pending = '';
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= CHUNK_CHARS) {
      yield pending;
      pending = '';
    }
  }
  if (pending !== '') yield pending;
}
