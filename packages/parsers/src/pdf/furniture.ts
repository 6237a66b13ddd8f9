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
 * Running headers, footers and page numbers: fragments in the top or bottom band of their page
 * that are a bare page number, or whose text (digits normalised) is in the same band on at least
 * one other page. Fragments set larger than the body (a title on the first page that is also the
 * running header) stay in the body. Returns, per page, the furniture fragments' indexes.
 */
export function findFurniture(pages: readonly FurniturePage[], bodySize: number): Map<number, FurnitureKind>[] {
  const bandOf = (page: FurniturePage, f: LineFragment): FurnitureKind | undefined => {
    if (f.size > bodySize * 1.25) return undefined;
    if (f.bbox[3] <= page.height * BAND) return 'page_header';
    if (f.bbox[1] >= page.height * (1 - BAND)) return 'page_footer';
    return undefined;
  };
  const pagesWithKey = new Map<string, Set<number>>();
  pages.forEach((page, p) => {
    for (const f of page.fragments) {
      const band = bandOf(page, f);
      if (!band) continue;
      const key = `${band}\u0000${furnitureKey(f.text)}`;
      let seen = pagesWithKey.get(key);
      if (!seen) pagesWithKey.set(key, (seen = new Set()));
      seen.add(p);
    }
  });
  return pages.map((page) => {
    const found = new Map<number, FurnitureKind>();
    page.fragments.forEach((f, i) => {
      const band = bandOf(page, f);
      if (!band) return;
      const repeated = (pagesWithKey.get(`${band}\u0000${furnitureKey(f.text)}`)?.size ?? 0) >= 2;
      if (repeated || PAGE_NUMBER.test(f.text)) found.set(i, band);
    });
    return found;
  });
}
