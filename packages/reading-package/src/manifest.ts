import type { BBox, Engine, FlowBlock, FurnitureBlock, Origin } from './blocks.js';

/**
 * The reading package manifest, schema version 2. Documented for clients in
 * docs/reading-package.md and described by schema/reading-package.v2.schema.json; change all
 * three together and bump `schemaVersion` on breaking changes.
 *
 * The manifest holds no absolute URLs and no timestamps: asset links (in `markdown`) are
 * root-relative and made absolute per request from the current backend's base URL, and a re-run
 * of the same assemble produces identical bytes.
 */
export const SCHEMA_VERSION = 2;

/** @deprecated since schema 2: the name `Origin` says the same. Kept while version-1 fields are. */
export type PartOrigin = Origin;

export type AssetRole = 'embedded-image' | 'figure' | 'page-image' | 'page-preview';

export interface AssetEntry {
  /** sha256 of the bytes (hex): the asset's content address and its ETag. */
  sha256: string;
  mediaType: string;
  size: number;
  role: AssetRole;
  /** Name inside the source document, when it had one. */
  name?: string;
  /** For page images and figures on a page: the 0-based page. */
  page?: number;
  /** Pixel size of an image, when known. */
  width?: number;
  height?: number;
}

/** Where a page's OCR languages came from (`PackagePage.ocr.langSource`). */
export type OcrLangSource = 'request' | 'font' | 'text' | 'osd' | 'default';

/** What OCR made of a page, and whether its text replaced the page's text layer. */
export interface PageOcr {
  /** tesseract language string used, e.g. `jpn+eng`. */
  lang: string;
  langSource: OcrLangSource;
  origin: Origin;
  /** Mean confidence, 0–100. */
  confidence: number;
  /** True when OCR's text is the page's text; false when the text layer was kept. */
  chosen: boolean;
  /** The rule's verdict in words: why OCR was or was not chosen. */
  reason: string;
  /** OCR's text when the text layer was kept (kept beside it, never lost). */
  text?: string;
}

export interface PackagePage {
  index: number;
  /** Page size in `unit` (PDF points for PDF pages and slides, pixels for images). */
  width?: number;
  height?: number;
  unit?: 'pt' | 'px';
  /** The page's main-flow text (version 1 field, kept). */
  text: string;
  origin: Origin;
  /** Mean OCR confidence (0–100) when the text came from OCR (version 1 field, kept). */
  confidence?: number;
  ocr?: PageOcr;
  /** Why this page has no text, when reading it failed (the rest of the document is still valid). */
  error?: { code: string; message: string };
  /** sha256 of the rendered page image and of its small preview (both in `assets`). */
  image?: string;
  preview?: string;
  /** @deprecated version 1: the unit of `lines` boxes; use `unit`. */
  boxUnit?: 'pt' | 'px';
  /** OCR lines with boxes in page units, when the page was OCR-read. */
  lines?: { text: string; confidence: number; bbox: BBox }[];
}

/** @deprecated version 1: a sheet or a document table as a grid; use `table` blocks in `body`. */
export interface PackageTable {
  name: string;
  rows: string[][];
  origin: Origin;
}

/** @deprecated version 1: MinerU's layout blocks; `body` and `furniture` hold the same content. */
export type LegacyBlockType = 'heading' | 'paragraph' | 'table' | 'image' | 'equation' | 'code' | 'list' | 'header' | 'footer' | 'page_number' | 'footnote' | 'other';

/** @deprecated version 1 (MinerU only). */
export interface LegacyLayoutBlock {
  type: LegacyBlockType;
  page: number;
  bbox: BBox;
  bboxPt?: BBox;
  text?: string;
  level?: number;
  html?: string;
  cells?: string[][];
  asset?: string;
  captions?: string[];
  footnotes?: string[];
  origin: Origin;
}

export interface PackageManifest {
  schemaVersion: typeof SCHEMA_VERSION;
  packageId: string;
  jobId: string;
  /** The owning tenant: kept in the stored manifest for access checks, left out of API answers. */
  tenant: string;
  source: { filename: string; mediaType: string; size: number; sha256: string };
  /** The engine of the document as a whole (its main parser). */
  origin: Origin;
  /** Plain text of the main flow in reading order, footnotes after it. */
  text: string;
  /** GitHub-flavoured Markdown built from `body` and the footnotes. */
  markdown: string;
  /** Paged formats only (PDF, slides, images). */
  pages?: PackagePage[];
  /** The main flow in reading order. */
  body: FlowBlock[];
  /** Running headers and footers, footnotes, speaker notes: kept out of the main flow. */
  furniture: FurnitureBlock[];
  /** @deprecated version 1: every `table` block as a grid. */
  tables: PackageTable[];
  /** @deprecated version 1 (MinerU only). */
  blocks?: LegacyLayoutBlock[];
  assets: AssetEntry[];
  /** Set when the requested engine could not be used and another produced the package. */
  fallback?: { engine: 'local'; reason: { code: string; message: string } };
}

export type { Engine };
