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

export type AssetRole = 'embedded-image' | 'page-image' | 'page-preview';

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
  assets: AssetEntry[];
}
