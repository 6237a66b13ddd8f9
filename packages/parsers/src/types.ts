/**
 * What every parser returns. It is the worker's intermediate form: the assemble stage turns it
 * into a reading package (docs/reading-package.md). Parsers never touch Redis, queues or disk
 * beyond reading their input file, so they can run in a worker thread and be tested alone.
 */

import type { FlowBlock, FurnitureBlock, Origin } from '@readpack/reading-package';

export type { Engine } from '@readpack/reading-package';
/** Library, version and engine of a part: the block model's `Origin`. */
export type PartOrigin = Origin;

export interface ParsedPage {
  /** 0-based page index. */
  index: number;
  text: string;
  origin: PartOrigin;
  /** Count of non-whitespace characters in `text`: the OCR-routing rule of a later stage reads it. */
  charCount: number;
  /**
   * CID orderings of the CJK fonts used on the page (`Japan1`, `GB1`, `CNS1`, `Korea1`): the OCR
   * stage picks its language from them when the upload named none.
   */
  cidOrderings?: string[];
  /** Page size in PDF points (slides: their size in points). */
  width?: number;
  height?: number;
}

export interface ParsedTable {
  /** Sheet name for spreadsheets, `Table N` for tables inside documents. */
  name: string;
  /** Cells as displayed (formatted) text, row-major; ragged rows are padded with ''. */
  rows: string[][];
  origin: PartOrigin;
}

export interface EmbeddedImage {
  /** Name inside the source document, e.g. `word/media/image1.png`, or `image-1.png`. */
  name: string;
  mediaType: string;
  data: Uint8Array;
  /** sha256 of `data` (hex): what `figure` blocks name as their `asset` (`embeddedImage()` computes it). */
  sha256: string;
  /** 0-based page the image sits on, for paged formats. */
  page?: number;
  /** Pixel size, when known. */
  width?: number;
  height?: number;
}

export interface ParsedDocument {
  /** The origin of the document as a whole (the main parser). */
  origin: PartOrigin;
  /** The main flow in reading order, as typed blocks (@readpack/reading-package). */
  body: FlowBlock[];
  /** Running headers and footers, footnotes, speaker notes. */
  furniture: FurnitureBlock[];
  /** Derived from the blocks by `parsedDocument()`: the main flow's plain text, footnotes after it. */
  text: string;
  /** Paged formats (PDF, slides) only; each page's `text` is the plain text of its body blocks. */
  pages?: ParsedPage[];
  /** Derived from the blocks by `parsedDocument()`: every table block as a grid (version-1 shape). */
  tables: ParsedTable[];
  images: EmbeddedImage[];
}

export interface ParseInput {
  /** Absolute path of the document on local disk. */
  path: string;
  /** Sniffed media type (see @readpack/media), never the client's claim. */
  mediaType: string;
  /** PDF user password, when the upload supplied one. Never logged. */
  password?: string;
}

/**
 * Size guards for `parseDocument`. Every field is optional and has a default (`DEFAULT_LIMITS`).
 * Passed as a second argument so `ParseInput` stays a description of the document only.
 */
export interface ParseOptions {
  /** PDF: a document with more pages fails with `too_many_pages`. Default 5000. */
  maxPages?: number;
  /** XLSX sheets and CSV: more rows than this fails with `unsupported_content`. Default 100 000. */
  maxSheetRows?: number;
  /** XLSX sheets and CSV: more columns than this fails with `unsupported_content`. Default 1000. */
  maxSheetColumns?: number;
  /** DOCX/XLSX: more ZIP entries than this fails with `archive_too_large`. Default 10 000 (MAX_ZIP_ENTRIES). */
  maxZipEntries?: number;
  /** DOCX/XLSX: a larger total uncompressed size fails with `archive_too_large`. Default 512 MiB (MAX_ZIP_UNCOMPRESSED_BYTES). */
  maxZipUncompressedBytes?: number;
  /** DOCX/XLSX: an entry (over 1 MiB) compressed more than this fails with `archive_too_large`. Default 200 (MAX_ZIP_RATIO). */
  maxZipRatio?: number;
}

/** Stable error codes a user can cause with a document; they end a job at once (no retry). */
export type DocumentErrorCode =
  | 'corrupt_document'
  | 'encrypted_document'
  | 'empty_document'
  | 'unsupported_content'
  | 'too_many_pages'
  | 'archive_too_large';

/**
 * A problem with the document itself: retrying cannot help. Anything else a parser throws is
 * treated as transient by the worker (retried with backoff).
 */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
  constructor(
    readonly code: DocumentErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
