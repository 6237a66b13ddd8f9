import { createHash } from 'node:crypto';
import { blocksText, documentText, tableGrid, walkBlocks, type FlowBlock, type FurnitureBlock } from '@readpack/reading-package';
import type { EmbeddedImage, ParsedDocument, ParsedPage, PartOrigin } from './types.js';

/** A non-whitespace character count: the signal the OCR-routing stage reads. */
export function countChars(text: string): number {
  // One pass, no copies: it runs on every page's text. Code points are counted as Array.from
  // counts them (a surrogate pair is one), white space is what `\s` matches.
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 ? code === 0x20 || (code >= 0x09 && code <= 0x0d) : code >= 0xa0 && isWideSpace(code)) continue;
    count += 1;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
  }
  return count;
}

/** The white space `\s` matches above U+009F (ECMAScript WhiteSpace and LineTerminator). */
function isWideSpace(code: number): boolean {
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
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
  if (parts.pages) doc.pages = pagesOf(parts.pages, parts.body, parts.origin);
  return doc;
}

/** Each page of `frames` with its text and character count, from the blocks on it (a block is its first page's). */
export function pagesOf(frames: readonly PageFrame[], body: readonly FlowBlock[], origin: PartOrigin): ParsedPage[] {
  const byPage = blocksByPage(body);
  return frames.map((frame) => pageOf(frame, byPage.get(frame.index) ?? [], origin));
}

/** Top-level blocks by their page, in order: grouped once, as filtering the body for each page is quadratic (minutes at 10,000 pages). */
export function blocksByPage(body: readonly FlowBlock[]): Map<number | undefined, FlowBlock[]> {
  const byPage = new Map<number | undefined, FlowBlock[]>();
  for (const block of body) {
    const blocks = byPage.get(block.page);
    if (blocks) blocks.push(block);
    else byPage.set(block.page, [block]);
  }
  return byPage;
}

function pageOf(frame: PageFrame, blocks: FlowBlock[], origin: PartOrigin): ParsedPage {
  const text = blocksText(blocks);
  const page: ParsedPage = { index: frame.index, text, origin, charCount: countChars(text) };
  if (frame.width !== undefined) page.width = frame.width;
  if (frame.height !== undefined) page.height = frame.height;
  return page;
}

/** Every table block as a grid, named by its sheet or `Table N` in document order (`before`: tables in the parts of the document before these blocks). */
export function tablesOf(body: FlowBlock[], before = 0): ParsedDocument['tables'] {
  const tables: ParsedDocument['tables'] = [];
  for (const block of walkBlocks(body)) {
    if (block.type === 'table') tables.push({ name: block.name ?? `Table ${before + tables.length + 1}`, rows: tableGrid(block), origin: block.origin });
  }
  return tables;
}
