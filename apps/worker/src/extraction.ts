import type { ParsedDocument } from '@readpack/parsers';

/**
 * The extract stage's output as stored in the blob store for the assemble stage: a
 * ParsedDocument whose embedded images were moved into the blob store and are named by hash.
 */
export interface Extraction extends Omit<ParsedDocument, 'images'> {
  images: { name: string; mediaType: string; sha256: string; size: number; page?: number; width?: number; height?: number }[];
}
