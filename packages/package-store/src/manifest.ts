/**
 * The reading package manifest, schema version 1. Documented for clients in
 * docs/reading-package.md; change both together and bump `schemaVersion` on breaking changes.
 *
 * The manifest holds no absolute URLs and no timestamps: URLs are built per request from the
 * current backend's base URL, and a re-run of the same assemble must produce identical bytes.
 */
export const SCHEMA_VERSION = 1;

export type Engine = 'native' | 'text-layer' | 'ocr' | 'mineru';

export interface PartOrigin {
  parser: string;
  version: string;
  engine: Engine;
}

export type AssetRole = 'embedded-image' | 'figure' | 'page-image' | 'page-preview';

export interface AssetEntry {
  /** sha256 of the bytes (hex): the asset's content address and its ETag. */
  sha256: string;
  mediaType: string;
  size: number;
  role: AssetRole;
  /** Name inside the source document, when it had one. */
  name?: string;
  /** For page images: the 0-based page. */
  page?: number;
}

export interface PackagePage {
  index: number;
  text: string;
  origin: PartOrigin;
  /** Mean OCR confidence (0–100) when the text came from OCR. */
  confidence?: number;
  /** Why this page has no text, when reading it failed (the rest of the document is still valid). */
  error?: { code: string; message: string };
  /** sha256 of the rendered page image and of its small preview (both in `assets`). */
  image?: string;
  preview?: string;
  /** Unit of `lines` boxes: PDF points for PDF pages, source pixels for images. */
  boxUnit?: 'pt' | 'px';
  /** OCR lines with boxes in page units (x0, y0 top-left, x1, y1), when the page was OCR-read. */
  lines?: { text: string; confidence: number; bbox: [number, number, number, number] }[];
}

export type BlockType = 'heading' | 'paragraph' | 'table' | 'image' | 'equation' | 'code' | 'list' | 'header' | 'footer' | 'page_number' | 'footnote' | 'other';

/** Layout blocks in reading order (from a layout engine such as MinerU). */
export interface PackageBlock {
  type: BlockType;
  page: number;
  /** Box normalized to 0–1000 of the page, and in PDF points when the page size is known. */
  bbox: [number, number, number, number];
  bboxPt?: [number, number, number, number];
  text?: string;
  /** Heading level, 1 = top. */
  level?: number;
  /** Tables: the engine's HTML and the cells (a merged cell's text in its first position). */
  html?: string;
  cells?: string[][];
  /** sha256 of the block's picture (figures, tables, equations), listed in `assets`. */
  asset?: string;
  captions?: string[];
  footnotes?: string[];
  origin: PartOrigin;
}

export interface PackageTable {
  name: string;
  rows: string[][];
  origin: PartOrigin;
}

export interface PackageManifest {
  schemaVersion: typeof SCHEMA_VERSION;
  packageId: string;
  jobId: string;
  tenant: string;
  source: { filename: string; mediaType: string; size: number; sha256: string };
  origin: PartOrigin;
  text: string;
  pages?: PackagePage[];
  tables: PackageTable[];
  blocks?: PackageBlock[];
  assets: AssetEntry[];
  /** Set when the requested engine could not be used and another produced the package. */
  fallback?: { engine: 'local'; reason: { code: string; message: string } };
}
