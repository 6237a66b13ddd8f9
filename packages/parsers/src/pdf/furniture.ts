import type { LineFragment } from './layout-types.js';

export type FurnitureKind = 'page_header' | 'page_footer';

/** Share of the page height, at the top and the bottom, where running headers and footers sit. */
const BAND = 0.12;

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

/**
 * Running headers, footers and page numbers: fragments on the first (last) row of their page,
 * inside its top (bottom) band, that are a bare page number, or whose text (digits normalised) is in the same band on at least
 * one other page. Fragments set larger than the body (a title on the first page that is also the
 * running header) stay in the body. Returns, per page, the furniture fragments' indexes.
 */
export function findFurniture(pages: readonly FurniturePage[], bodySize: number): Map<number, FurnitureKind>[] {
  const ranks = pages.map((page) => rowRanks(page.fragments, bodySize));
  /** Header or footer band, for a fragment with letters or digits on the page's first or last row. */
  const bandOf = (p: number, i: number): FurnitureKind | undefined => {
    const page = pages[p]!;
    const f = page.fragments[i]!;
    const rank = ranks[p]![i]!;
    if (f.size > bodySize * 1.25 || !/[\p{L}\p{N}]/u.test(f.text)) return undefined;
    if (rank.fromTop === 0 && f.bbox[3] <= page.height * BAND) return 'page_header';
    if (rank.fromBottom === 0 && f.bbox[1] >= page.height * (1 - BAND)) return 'page_footer';
    return undefined;
  };
  const pagesWithKey = new Map<string, Set<number>>();
  pages.forEach((page, p) => {
    for (let i = 0; i < page.fragments.length; i += 1) {
      const f = page.fragments[i]!;
      const band = bandOf(p, i);
      if (!band) continue;
      const key = `${band}\u0000${furnitureKey(f.text)}`;
      let seen = pagesWithKey.get(key);
      if (!seen) pagesWithKey.set(key, (seen = new Set()));
      seen.add(p);
    }
  });
  return pages.map((page, p) => {
    const found = new Map<number, FurnitureKind>();
    page.fragments.forEach((f, i) => {
      const band = bandOf(p, i);
      if (!band) return;
      const repeated = (pagesWithKey.get(`${band}\u0000${furnitureKey(f.text)}`)?.size ?? 0) >= 2;
      if (repeated || PAGE_NUMBER.test(f.text)) found.set(i, band);
    });
    return found;
  });
}

/** Each fragment's row counted from the top and from the bottom of its page (rows by centre). */
function rowRanks(fragments: readonly LineFragment[], unit: number): { fromTop: number; fromBottom: number }[] {
  const order = fragments.map((f, i) => ({ i, c: (f.bbox[1] + f.bbox[3]) / 2 })).sort((a, b) => a.c - b.c);
  const rowOf = new Array<number>(fragments.length).fill(0);
  let row = -1;
  let rowCenter = -Infinity;
  for (const { i, c } of order) {
    if (c - rowCenter > 0.5 * unit) {
      row += 1;
      rowCenter = c;
    }
    rowOf[i] = row;
  }
  return rowOf.map((r) => ({ fromTop: r, fromBottom: row - r }));
}
