import type { LineFragment } from './layout-types.js';

export type FurnitureKind = 'page_header' | 'page_footer';

/** Share of the page height, at the top and the bottom, where running headers and footers sit. */
const BAND = 0.12;
/** Page numbers sit further in (LaTeX's is 15 % above the bottom of an A4 page). */
const PAGE_NUMBER_BAND = 0.2;

/** A bare page number: `12`, `- 12 -`, `Page 3 of 9`, `Seite 4`, `xii`. */
const PAGE_NUMBER = /^[-–—\s]*(?:page|seite|p\.|s\.)?\s*(?:\d{1,5}|[ivxlc]{1,7})(?:\s*(?:of|von|\/)\s*\d{1,5})?[-–—\s]*$/iu;

/** The text with its digits normalised: a running header with a page or chapter number keeps its key. */
function furnitureKey(text: string): string {
  return text.toLowerCase().replace(/\d+/gu, '#').replace(/\s+/gu, ' ').trim();
}

export interface FurniturePage {
  height: number;
  fragments: readonly LineFragment[];
}

interface Rank {
  fromTop: number;
  fromBottom: number;
  /** Fragments on the same row. */
  rowSize: number;
}

/**
 * Running headers, footers and page numbers, on the first (last) row of their page:
 * - text in the top (bottom) 12 % whose key (digits normalised) is there on another page too;
 * - a page number alone on its row: in the top (bottom) 12 %, or 20 % when its value less the
 *   page's index agrees with the other pages' numbers (numbers in a diagram's last row do not).
 * Fragments set larger than the body (a title on the first page that is also the running header)
 * stay in the body. Returns, per page, the furniture fragments' indexes.
 */
export function findFurniture(pages: readonly FurniturePage[], bodySize: number): Map<number, FurnitureKind>[] {
  const votes = new FurnitureVotes(bodySize, pages.length);
  pages.forEach((page, p) => votes.add(page, p));
  return pages.map((page, p) => votes.marks(page, p));
}

/**
 * findFurniture in two passes, so that a document can be streamed page by page (a sliced PDF
 * whose pages are never all in memory): `add` every page in order, then ask each page's `marks`.
 * What carries from page to page is small: a count per running-header key and per page-number offset.
 */
export class FurnitureVotes {
  /** Per band and key, on how many pages it is. */
  private readonly pagesWithKey = new Map<string, number>();
  /** Page-number offsets in document order with their votes (the first of the most voted wins). */
  private readonly offsets = new Map<number, number>();

  constructor(
    private readonly bodySize: number,
    private readonly pageCount: number,
  ) {}

  add(page: FurniturePage, p: number): void {
    const ranks = rowRanks(page.fragments, this.bodySize);
    const keys = new Set<string>();
    page.fragments.forEach((f, i) => {
      const band = this.bandOf(page, ranks, i, BAND);
      if (band) keys.add(`${band}\u0000${furnitureKey(f.text)}`);
      const offset = numberOffset(f.text, p);
      if (offset !== undefined && ranks[i]!.rowSize === 1 && this.bandOf(page, ranks, i, PAGE_NUMBER_BAND)) this.offsets.set(offset, (this.offsets.get(offset) ?? 0) + 1);
    });
    for (const key of keys) this.pagesWithKey.set(key, (this.pagesWithKey.get(key) ?? 0) + 1);
  }

  /** The page's furniture fragments (by index), once every page was added. */
  marks(page: FurniturePage, p: number): Map<number, FurnitureKind> {
    const ranks = rowRanks(page.fragments, this.bodySize);
    const { consensus, votes } = this.consensus();
    const agreed = (text: string): boolean => {
      const offset = numberOffset(text, p);
      return offset !== undefined && offset === consensus && (votes >= 2 || this.pageCount === 1);
    };
    const found = new Map<number, FurnitureKind>();
    page.fragments.forEach((f, i) => {
      const band = this.bandOf(page, ranks, i, BAND);
      if (band && (this.pagesWithKey.get(`${band}\u0000${furnitureKey(f.text)}`) ?? 0) >= 2) {
        found.set(i, band);
        return;
      }
      if (!PAGE_NUMBER.test(f.text) || ranks[i]!.rowSize !== 1) return;
      const numberBand = band ?? (agreed(f.text) ? this.bandOf(page, ranks, i, PAGE_NUMBER_BAND) : undefined);
      if (numberBand) found.set(i, numberBand);
    });
    return found;
  }

  private consensus(): { consensus: number | undefined; votes: number } {
    let consensus: number | undefined;
    let votes = 0;
    for (const [offset, n] of this.offsets) if (n > votes) [consensus, votes] = [offset, n];
    return { consensus, votes };
  }

  private bandOf(page: FurniturePage, ranks: readonly Rank[], i: number, share: number): FurnitureKind | undefined {
    const f = page.fragments[i]!;
    const rank = ranks[i]!;
    if (f.size > this.bodySize * 1.25 || !/[\p{L}\p{N}]/u.test(f.text)) return undefined;
    if (rank.fromTop === 0 && f.bbox[3] <= page.height * share) return 'page_header';
    if (rank.fromBottom === 0 && f.bbox[1] >= page.height * (1 - share)) return 'page_footer';
    return undefined;
  }
}

/** A bare arabic page number's value less the page's index (constant through a document). */
function numberOffset(text: string, pageIndex: number): number | undefined {
  const match = /^[-–—\s]*(?:page|seite|p\.|s\.)?\s*(\d{1,5})[-–—\s]*$/iu.exec(text);
  return match ? Number(match[1]) - pageIndex : undefined;
}

/** Each fragment's row counted from the top and from the bottom of its page (rows by centre). */
function rowRanks(fragments: readonly LineFragment[], unit: number): Rank[] {
  const order = fragments.map((f, i) => ({ i, c: (f.bbox[1] + f.bbox[3]) / 2 })).sort((a, b) => a.c - b.c);
  const rowOf = new Array<number>(fragments.length).fill(0);
  const sizes: number[] = [];
  let row = -1;
  let rowCenter = -Infinity;
  for (const { i, c } of order) {
    if (c - rowCenter > 0.5 * unit) {
      row += 1;
      rowCenter = c;
      sizes.push(0);
    }
    rowOf[i] = row;
    sizes[row] = (sizes[row] ?? 0) + 1;
  }
  return rowOf.map((r) => ({ fromTop: r, fromBottom: row - r, rowSize: sizes[r] ?? 1 }));
}
