import type { BBox, FurnitureBlock, Origin } from '@readpack/reading-package';
import { parsedDocument, type PageFrame } from '../document.js';
import type { ParsedDocument } from '../types.js';
import { flowBlocks } from './flow.js';
import { FurnitureVotes } from './furniture.js';
import { roundBox } from './geometry.js';
import type { OutlineTarget } from './headings.js';
import type { Direction, LineFragment } from './layout-types.js';
import { layoutPage, type PageUnit, type PlacedGraphic } from './page-layout.js';
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

/**
 * The document from its slices in page order, with the document-wide steps kept document-wide:
 * the body size from the slices' size statistics, running headers and page numbers voted over
 * every page (first pass), then each page laid out (second pass), headings from the outline and
 * the font statistics of every paragraph, lists across page breaks. Only one slice's pages are
 * loaded at a time; what is kept is the pages' paragraphs, not their text runs. Images are the
 * caller's: the result has none.
 */
export async function mergePdfSlices(slices: readonly SliceSource[], outline: readonly PdfOutlineEntry[], origin: Origin): Promise<ParsedDocument> {
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
  const furniture: FurnitureBlock[] = [];
  const units: PageUnit[][] = [];
  const frames: PageFrame[] = [];
  const orderings: string[][] = [];
  for (const slice of slices) {
    for (const page of await slice.load()) {
      const marks = votes.marks({ height: page.frameHeight ?? Infinity, fragments: page.fragments }, page.index);
      const toPage = toPageBoxOf(page);
      const flow: LineFragment[] = [];
      page.fragments.forEach((fragment, j) => {
        const kind = marks.get(j);
        if (kind) furniture.push({ type: kind, text: fragment.text, page: page.index, bbox: roundBox(toPage(fragment.bbox)), origin });
        else flow.push(fragment);
      });
      units.push(layoutPage({ page: page.index, fragments: flow, graphics: page.graphics, unit, toPage, origin }));
      frames.push({ index: page.index, ...(page.width !== undefined && page.height !== undefined ? { width: page.width, height: page.height } : {}) });
      orderings.push(page.cidOrderings);
    }
  }
  const body = flowBlocks(units, targets, origin);
  const parsed = parsedDocument({ origin, body, furniture, pages: frames });
  parsed.pages?.forEach((page, i) => {
    const pageOrderings = orderings[i] ?? [];
    if (pageOrderings.length > 0) page.cidOrderings = pageOrderings;
  });
  return parsed;
}
