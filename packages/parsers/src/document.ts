import { createHash } from 'node:crypto';
import { blocksText, documentText, tableGrid, walkBlocks, type FlowBlock, type FurnitureBlock } from '@readpack/reading-package';
import type { EmbeddedImage, ParsedDocument, ParsedPage, PartOrigin } from './types.js';

/** A non-whitespace character count: the signal the OCR-routing stage reads. */
export function countChars(text: string): number {
  return Array.from(text.replace(/\s+/gu, '')).length;
}

/** An embedded image named by the sha256 of its bytes (what a `figure` block's `asset` refers to). */
export function embeddedImage(name: string, mediaType: string, data: Uint8Array, extra: Pick<EmbeddedImage, 'page' | 'width' | 'height'> = {}): EmbeddedImage {
  return { name, mediaType, data, sha256: createHash('sha256').update(data).digest('hex'), ...extra };
}

export interface PageFrame {
  index: number;
  width?: number;
  height?: number;
}

/**
 * The one way a parser finishes its result: `text`, the version-1 `tables` and each page's
 * `text`/`charCount` are derived from the blocks, so they can never disagree with them.
 */
export function parsedDocument(parts: { origin: PartOrigin; body: FlowBlock[]; furniture?: FurnitureBlock[]; images?: EmbeddedImage[]; pages?: PageFrame[] }): ParsedDocument {
  const furniture = parts.furniture ?? [];
  const doc: ParsedDocument = {
    origin: parts.origin,
    body: parts.body,
    furniture,
    text: documentText({ body: parts.body, furniture }),
    tables: tablesOf(parts.body),
    images: parts.images ?? [],
  };
  if (parts.pages) {
    // Blocks grouped by page once: filtering the body for each page is quadratic, minutes at 10,000 pages.
    const byPage = new Map<number | undefined, FlowBlock[]>();
    for (const block of parts.body) {
      const blocks = byPage.get(block.page);
      if (blocks) blocks.push(block);
      else byPage.set(block.page, [block]);
    }
    doc.pages = parts.pages.map((frame) => pageOf(frame, byPage.get(frame.index) ?? [], parts.origin));
  }
  return doc;
}

function pageOf(frame: PageFrame, blocks: FlowBlock[], origin: PartOrigin): ParsedPage {
  const text = blocksText(blocks);
  const page: ParsedPage = { index: frame.index, text, origin, charCount: countChars(text) };
  if (frame.width !== undefined) page.width = frame.width;
  if (frame.height !== undefined) page.height = frame.height;
  return page;
}

/** Every table block as a grid, named by its sheet or `Table N` in document order. */
export function tablesOf(body: FlowBlock[]): ParsedDocument['tables'] {
  const tables: ParsedDocument['tables'] = [];
  for (const block of walkBlocks(body)) {
    if (block.type === 'table') tables.push({ name: block.name ?? `Table ${tables.length + 1}`, rows: tableGrid(block), origin: block.origin });
  }
  return tables;
}
