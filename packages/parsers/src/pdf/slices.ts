import type { BBox, FlowBlock, FurnitureBlock, Origin } from '@readpack/reading-package';
import { parsedDocument, type PageFrame } from '../document.js';
import type { ParsedDocument } from '../types.js';
import { BlockFlow } from './flow.js';
import { FurnitureVotes } from './furniture.js';
import { roundBox } from './geometry.js';
import { HeadingEvidence, type OutlineTarget } from './headings.js';
import type { Direction, LineFragment } from './layout-types.js';
import { layoutPage, type PlacedGraphic } from './page-layout.js';
import { layoutFrame } from './text-items.js';

/**
 * What one PDF page contributes before the document-wide steps (furniture, headings, lists), as
 * plain data: a slice of a large PDF is read in one process and merged in another.
 */
export interface SlicePage {
  index: number;
  /** Page size in points; undefined when the page declares a size that is no size. */
  width?: number;
  height?: number;
  /** Height of the layout frame (the page's width for vertical or turned text): where the furniture bands are. */
  frameHeight?: number;
  /** The layout frame's direction, with `width` and `height` (absent for a page with no sane size: frame = page). */
  direction?: Direction;
  /** pdfjs's viewport transform of a page with a sane size (outline destinations are PDF y on it). */
  viewport?: number[];
  fragments: LineFragment[];
  graphics: PlacedGraphic[];
  cidOrderings: string[];
}

/** An outline entry as read from the PDF: its destination's y still in PDF units of its page. */
export interface PdfOutlineEntry {
  title: string;
  level: number;
  page?: number;
  pdfY?: number;
}

/** Characters per font size, in the order sizes first appear: merged across slices, it gives the body size. */
export type SizeChars = [size: number, chars: number][];

/** One slice to merge: its page count and size statistics at hand, its pages loaded when needed (twice: two passes). */
export interface SliceSource {
  pageCount: number;
  sizes: SizeChars;
  load(): Promise<readonly SlicePage[]>;
}

export function sizeChars(pages: readonly SlicePage[]): SizeChars {
  const chars = new Map<number, number>();
  for (const page of pages) for (const f of page.fragments) chars.set(f.size, (chars.get(f.size) ?? 0) + f.text.length);
  return [...chars];
}

/** The size most characters of the document have (the unit gutters and bands are measured in). */
function bodySizeOf(slices: readonly SliceSource[]): number {
  const chars = new Map<number, number>();
  for (const slice of slices) for (const [size, n] of slice.sizes) chars.set(size, (chars.get(size) ?? 0) + n);
  let body = 10;
  let most = -1;
  for (const [size, n] of chars) if (n > most) [body, most] = [size, n];
  return body;
}

const toPageBoxOf = (page: SlicePage): ((frameBox: BBox) => BBox) =>
  page.direction !== undefined && page.width !== undefined && page.height !== undefined ? layoutFrame(page.direction, page.width, page.height).toPage : (b) => b;

/** The top of an outline destination on its page, in page coordinates (as pdfjs's convertToViewportPoint(0, y) computes it). */
function topOf(page: SlicePage, pdfY: number): number | undefined {
  const m = page.viewport;
  return m ? 0 * m[1]! + pdfY * m[3]! + m[5]! : undefined;
}

/** A page's frame (size) and the CID orderings of its CJK fonts: what a part says of its pages besides their blocks. */
export type PartPage = PageFrame & { cidOrderings?: string[] };

/**
 * A run of whole pages of the merged document, final: its blocks (each top-level block is the
 * part of its page's), its running headers and page numbers, its pages. Parts come in page order
 * and end where no list is open, so the parts' bodies one after the other are the document's.
 */
export interface DocumentPart {
  body: FlowBlock[];
  furniture: FurnitureBlock[];
  pages: PartPage[];
}

/** Pages per part, at least (a part ends at the first page boundary after them where no list is open). */
export const PART_PAGES = 200;

/**
 * The document from its slices in page order, with the document-wide steps kept document-wide
 * and never the whole document in memory: the body size from the slices' size statistics;
 * running headers and page numbers voted over every page (first pass); each page laid out and
 * what the heading decision needs of its paragraphs gathered (second pass); the pages laid out
 * again, headings and lists across page breaks decided, and the blocks handed to `emit` in parts
 * of about `partPages` pages (third pass). One slice's pages are loaded at a time, three times
 * each; a document of one slice (read whole) is laid out once. Images are the caller's.
 */
export async function mergePdfSlicesInParts(
  slices: readonly SliceSource[],
  outline: readonly PdfOutlineEntry[],
  origin: Origin,
  emit: (part: DocumentPart) => Promise<void> | void,
  partPages = PART_PAGES,
): Promise<void> {
  const unit = bodySizeOf(slices);
  const pageCount = slices.reduce((n, slice) => n + slice.pageCount, 0);
  const votes = new FurnitureVotes(unit, pageCount);
  const targets: OutlineTarget[] = outline.map(({ title, level, page }) => (page === undefined ? { title, level } : { title, level, page }));
  for (const slice of slices) {
    for (const page of await slice.load()) {
      votes.add({ height: page.frameHeight ?? Infinity, fragments: page.fragments }, page.index);
      outline.forEach((entry, i) => {
        if (entry.page !== page.index || entry.pdfY === undefined) return;
        const top = topOf(page, entry.pdfY);
        if (top !== undefined) targets[i]!.y = top;
      });
    }
  }
  const laidOut = (page: SlicePage) => {
    const marks = votes.marks({ height: page.frameHeight ?? Infinity, fragments: page.fragments }, page.index);
    const toPage = toPageBoxOf(page);
    const flow: LineFragment[] = [];
    const furniture: FurnitureBlock[] = [];
    page.fragments.forEach((fragment, j) => {
      const kind = marks.get(j);
      if (kind) furniture.push({ type: kind, text: fragment.text, page: page.index, bbox: roundBox(toPage(fragment.bbox)), origin });
      else flow.push(fragment);
    });
    return { units: layoutPage({ page: page.index, fragments: flow, graphics: page.graphics, unit, toPage, origin }), furniture };
  };
  // Read whole, the document is one slice already in memory: its layout is kept for the last pass.
  const kept = slices.length === 1 ? new Map<SlicePage, ReturnType<typeof laidOut>>() : undefined;
  const evidence = new HeadingEvidence(targets);
  let position = 0;
  for (const slice of slices) {
    for (const page of await slice.load()) {
      const layout = laidOut(page);
      kept?.set(page, layout);
      for (const u of layout.units) if (u.kind === 'paragraph') evidence.add(u.paragraph, position);
      position += 1;
    }
  }
  const levels = evidence.decide();
  const flow = new BlockFlow(origin);
  let furniture: FurnitureBlock[] = [];
  let pages: PartPage[] = [];
  let ordinal = 0;
  for (const slice of slices) {
    for (const page of await slice.load()) {
      const layout = kept?.get(page) ?? laidOut(page);
      for (const u of layout.units) flow.add(u, u.kind === 'paragraph' ? levels.levelOf(u.paragraph, ordinal++) : undefined);
      furniture.push(...layout.furniture);
      const frame: PartPage = { index: page.index, ...(page.width !== undefined && page.height !== undefined ? { width: page.width, height: page.height } : {}) };
      if (page.cidOrderings.length > 0) frame.cidOrderings = page.cidOrderings;
      pages.push(frame);
      if (pages.length >= partPages && flow.settled) {
        await emit({ body: flow.take(), furniture, pages });
        [furniture, pages] = [[], []];
      }
    }
  }
  const body = flow.end();
  if (pages.length > 0 || body.length > 0) await emit({ body, furniture, pages });
}

/** The document from its slices (mergePdfSlicesInParts), its parts joined in memory. */
export async function mergePdfSlices(slices: readonly SliceSource[], outline: readonly PdfOutlineEntry[], origin: Origin): Promise<ParsedDocument> {
  const body: FlowBlock[] = [];
  const furniture: FurnitureBlock[] = [];
  const pages: PartPage[] = [];
  await mergePdfSlicesInParts(slices, outline, origin, (part) => {
    for (const block of part.body) body.push(block);
    for (const block of part.furniture) furniture.push(block);
    for (const page of part.pages) pages.push(page);
  }, Infinity);
  const parsed = parsedDocument({ origin, body, furniture, pages: pages.map(({ cidOrderings: _, ...frame }) => frame) });
  parsed.pages?.forEach((page, i) => {
    const pageOrderings = pages[i]?.cidOrderings;
    if (pageOrderings) page.cidOrderings = pageOrderings;
  });
  return parsed;
}
