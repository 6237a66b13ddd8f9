import { open, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import { CFB_MEDIA_TYPE, classifyOle2, LEGACY_MEDIA_TYPES, looksLikeHtml } from './formats.js';

/**
 * The document kinds Readpack parses. The type is sniffed from the bytes (file-type reads magic
 * numbers and, for OOXML, the zip's entries); the filename only chooses between text flavours,
 * which have no magic number. An executable renamed `.pdf` is an executable.
 */
export const PARSEABLE_MEDIA_TYPES = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  // file-type tells PPTX from the other OOXML zips by [Content_Types].xml / the ppt/ folder.
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'text/plain': 'text',
  'text/markdown': 'text',
  'text/csv': 'text',
  // Images have no text layer: they are read by OCR.
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/tiff': 'image',
  'image/webp': 'image',
  'image/bmp': 'image',
  // XLS, ODS, DOC, HTML, and the formats the convert stage turns into PDF (formats.ts).
  ...LEGACY_MEDIA_TYPES,
} as const;

export type ParseableMediaType = keyof typeof PARSEABLE_MEDIA_TYPES;
export type DocumentKind = (typeof PARSEABLE_MEDIA_TYPES)[ParseableMediaType];

export type SniffResult =
  | { supported: true; mediaType: ParseableMediaType; kind: DocumentKind }
  | { supported: false; detected: string };

const TEXT_BY_EXTENSION: Record<string, ParseableMediaType> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.tab': 'text/tab-separated-values',
};

/** How much of a file without magic numbers is checked to call it text. */
const TEXT_SNIFF_BYTES = 64 * 1024;

/**
 * The file's type by its bytes. `bytes`, when given, is the whole file already in memory (a small
 * upload): it is sniffed from there, sparing the file's open, reads and close.
 */
export async function sniffMediaType(path: string, originalName: string, bytes?: Uint8Array): Promise<SniffResult> {
  const detected = bytes ? await fileTypeFromBuffer(bytes) : await fileTypeFromFile(path);
  if (detected?.mime === CFB_MEDIA_TYPE) {
    const mediaType = await withFile(path, classifyOle2);
    return mediaType ? { supported: true, mediaType, kind: PARSEABLE_MEDIA_TYPES[mediaType] } : { supported: false, detected: CFB_MEDIA_TYPE };
  }
  if (detected) {
    const kind = (PARSEABLE_MEDIA_TYPES as Record<string, DocumentKind | undefined>)[detected.mime];
    return kind ? { supported: true, mediaType: detected.mime as ParseableMediaType, kind } : { supported: false, detected: detected.mime };
  }
  const start = bytes ? textStartOf(bytes.subarray(0, TEXT_SNIFF_BYTES), bytes.byteLength < TEXT_SNIFF_BYTES) : await textStart(path);
  if (start !== undefined) {
    const extension = extname(originalName).toLowerCase();
    const mediaType = looksLikeHtml(start, extension) ? 'text/html' : (TEXT_BY_EXTENSION[extension] ?? 'text/plain');
    return { supported: true, mediaType, kind: 'text' };
  }
  return { supported: false, detected: 'application/octet-stream' };
}

async function withFile<T>(path: string, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  const handle = await open(path, 'r');
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/**
 * Text = non-empty, no NUL bytes, and valid UTF-8 (a multi-byte sequence cut at the window's end
 * is fine). Returns the window's first KiB as text, or undefined when the file is not text.
 */
async function textStart(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(TEXT_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, TEXT_SNIFF_BYTES, 0);
    return textStartOf(buffer.subarray(0, bytesRead), bytesRead < TEXT_SNIFF_BYTES);
  } finally {
    await handle.close();
  }
}

/** textStart's check on the file's first bytes; `whole` when they are shorter than the window (the file ends there, as textStart reads it). */
function textStartOf(window: Uint8Array, whole: boolean): string | undefined {
  if (window.byteLength === 0 || window.includes(0)) return undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoder.decode(window, { stream: !whole }).slice(0, 1024);
  } catch {
    return undefined; // not UTF-8: we do not guess legacy encodings
  }
}
export { classifyPdfOpenError, type PdfOpenFailure } from './pdf-errors.js';
export { LEGACY_MEDIA_TYPES } from './formats.js';
