import type { EmbeddedImage, ParsedDocument, ParsedPage, PartOrigin } from '@readpack/parsers';
import type { FlowBlock, FurnitureBlock } from '@readpack/reading-package';
import type { BlobStore } from '@readpack/package-store';

/**
 * The extract stage's output as stored in the blob store for the assemble stage: a
 * ParsedDocument whose embedded images were moved into the blob store and are named by hash,
 * without what assemble derives from the blocks itself (the document's `text` and `tables`):
 * a 10,000-page text PDF's text alone is ~38 MB that would be written, read and parsed for nothing.
 */
export interface Extraction extends Omit<ParsedDocument, 'images' | 'text' | 'tables'> {
  images: StoredImage[];
}

/**
 * A large PDF's extraction as its merge job stores it: parts of whole pages in page order, each a
 * blob of its own (ExtractionPart), so that neither the merge nor assemble holds the document
 * whole (docs/architecture.md, "Memory"). Its parts one after the other are the Extraction the
 * document would have had read whole; assemble makes the same package of either (tested).
 */
export interface PartedExtraction {
  origin: PartOrigin;
  images: StoredImage[];
  parts: PartPointer[];
}

export interface PartPointer {
  sha256: string;
  size: number;
  /** Pages in the part. */
  pages: number;
}

/** A run of whole pages of a parted extraction: its blocks (each top-level block its first page's), furniture and pages. */
export interface ExtractionPart {
  body: FlowBlock[];
  furniture: FurnitureBlock[];
  pages: ParsedPage[];
}

/** What an assemble job's `extraction` pointer points to. */
export type StoredExtraction = Extraction | PartedExtraction;

export function isParted(extraction: StoredExtraction): extraction is PartedExtraction {
  return 'parts' in extraction;
}

export interface StoredImage {
  name: string;
  mediaType: string;
  sha256: string;
  size: number;
  page?: number;
  width?: number;
  height?: number;
}

/** A parsed document as stored: its images by hash, the fields assemble derives left out. */
export function toExtraction(parsed: Omit<ParsedDocument, 'images'>, images: StoredImage[]): Extraction {
  const { text: _text, tables: _tables, ...stored } = parsed;
  return { ...stored, images };
}

/** Moves a document's (or a slice's) embedded images into the blob store, in order, named by hash. */
export async function storeImages(blobs: BlobStore, images: readonly EmbeddedImage[]): Promise<StoredImage[]> {
  const stored: StoredImage[] = [];
  for (const image of images) {
    const { sha256, size } = await blobs.putBuffer(image.data);
    stored.push({ name: image.name, mediaType: image.mediaType, sha256, size, ...(image.page === undefined ? {} : { page: image.page }), ...(image.width === undefined || image.height === undefined ? {} : { width: image.width, height: image.height }) });
  }
  return stored;
}
