import type { ParsedDocument } from '@readpack/parsers';

/**
 * The extract stage's output as stored in the blob store for the assemble stage: a
 * ParsedDocument whose embedded images were moved into the blob store and are named by hash,
 * without what assemble derives from the blocks itself (the document's `text` and `tables`):
 * a 10,000-page text PDF's text alone is ~38 MB that would be written, read and parsed for nothing.
 */
export interface Extraction extends Omit<ParsedDocument, 'images' | 'text' | 'tables'> {
  images: StoredImage[];
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
