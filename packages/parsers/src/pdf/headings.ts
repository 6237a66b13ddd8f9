import type { Paragraph } from './paragraphs.js';

/** Sizes are compared in half points: what one font size step in a document can be told apart by. */
const sizeKey = (size: number): number => Math.round(size * 2) / 2;

/** The body text size: the size most characters of the document have. */
export function bodyFontSize(paragraphs: readonly Paragraph[]): number {
  const chars = new Map<number, number>();
  for (const p of paragraphs) {
    const key = sizeKey(p.size);
    chars.set(key, (chars.get(key) ?? 0) + p.text.length);
  }
  let body = 10;
  let most = -1;
  for (const [size, n] of chars) {
    if (n > most || (n === most && size < body)) [body, most] = [size, n];
  }
  return body;
}

/**
 * A heading is short: a few lines, no sentence ending in a comma or a colon's list, a word of two
 * letters or more (a figure's labels, `β γ α P`, `s3 s1`, are single letters).
 */
function looksLikeHeading(p: Paragraph): boolean {
  return !p.marker && p.lineCount <= 3 && p.text.length <= 160 && /\p{L}{2}/u.test(p.text) && !/[,;]$/u.test(p.text);
}

/**
 * Heading levels from font statistics: paragraphs set clearly larger than the body are headings,
 * their distinct sizes (largest first) giving levels 1, 2…; short bold paragraphs at body size
 * are headings one level below the smallest larger size (unless `boldBodySize` is false). Levels
 * stop at 6.
 */
export function statisticalHeadings(paragraphs: readonly Paragraph[], bodySize: number, options: { boldBodySize?: boolean } = {}): Map<Paragraph, number> {
  const larger = paragraphs.filter((p) => looksLikeHeading(p) && p.size >= bodySize * 1.15);
  const sizes = [...new Set(larger.map((p) => sizeKey(p.size)))].sort((a, b) => b - a);
  const levels = new Map<Paragraph, number>();
  for (const p of larger) levels.set(p, Math.min(6, sizes.indexOf(sizeKey(p.size)) + 1));
  if (options.boldBodySize === false) return levels;
  const boldLevel = Math.min(6, sizes.length + 1);
  for (const p of paragraphs) {
    if (levels.has(p) || !p.bold || !looksLikeHeading(p)) continue;
    if (p.size >= bodySize * 0.95 && p.lineCount <= 2 && p.text.length <= 100 && !/[.:]$/u.test(p.text)) levels.set(p, boldLevel);
  }
  return levels;
}

/** An outline (bookmark) entry: its title, depth (1 = top) and where it points, when known. */
export interface OutlineTarget {
  title: string;
  level: number;
  page?: number;
  /** Top of the destination in frame coordinates (top-left origin), when the destination has one. */
  y?: number;
}

/** Lower case, numbering and punctuation dropped, whitespace folded: how titles are compared. */
export function headingKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/^\s*(?:chapter|kapitel|section|part|teil)?\s*(?:[\divxlc]+[.)]?)+(?:\s|$)/u, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Matches outline entries to paragraphs: on the entry's page, the heading-like paragraph with the
 * same title (numbering aside) nearest to the destination's top. Matched paragraphs get the
 * entry's depth as their level, which wins over the statistics.
 */
export function outlineHeadings(targets: readonly OutlineTarget[], pages: readonly (readonly Paragraph[])[]): Map<Paragraph, number> {
  // Titles are looked up by key: an outline of thousands of entries must not scan every paragraph each.
  const byKey = new Map<string, { p: Paragraph; page: number }[]>();
  pages.forEach((paragraphs, page) => {
    for (const p of paragraphs) {
      if (p.marker || p.lineCount > 3) continue;
      const key = headingKey(p.text);
      let list = byKey.get(key);
      if (!list) byKey.set(key, (list = []));
      list.push({ p, page });
    }
  });
  const levels = new Map<Paragraph, number>();
  for (const target of targets) {
    const key = headingKey(target.title);
    if (key === '') continue;
    let best: Paragraph | undefined;
    let bestDistance = Infinity;
    for (const { p, page } of byKey.get(key) ?? []) {
      // A destination may sit on the page before or after its heading (an anchor set before a
      // page break, `\addcontentsline` after a `\chapter*`'s `\clearpage`): its own page wins.
      const pagesOff = target.page === undefined ? 0 : Math.abs(page - target.page);
      if (levels.has(p) || pagesOff > 1) continue;
      const distance = pagesOff * 1e6 + (target.y === undefined || pagesOff > 0 ? 0 : Math.abs(p.bbox[1] - target.y));
      if (distance < bestDistance) [best, bestDistance] = [p, distance];
    }
    if (best) levels.set(best, Math.min(6, Math.max(1, target.level)));
  }
  return levels;
}

/**
 * Headings of a document whose outline matched some of its paragraphs: the outline's, at its
 * levels, and besides them only paragraphs set clearly larger than the body in a size the
 * outline's headings do not have. Bold lines at body size are left out: with an outline they are
 * run-in labels (`Definition 3`, `Satz 1.1`, `Beweis`), not sections. A larger paragraph in a
 * size the outline's headings have, but missing from it, was left out by its author (LaTeX's
 * starred `\chapter*{Vorwort}`, a symbol index's group titles): the outline is the author's own
 * list of that size's headings. A size the outline never uses (a title above the chapters, a
 * level it does not go down to) keeps its statistics level.
 */
export function outlineLedHeadings(paragraphs: readonly Paragraph[], bodySize: number, outlined: ReadonlyMap<Paragraph, number>): Map<Paragraph, number> {
  const outlineSizes = new Set([...outlined.keys()].map((p) => sizeKey(p.size)));
  const levels = new Map(outlined);
  for (const [p, level] of statisticalHeadings(paragraphs, bodySize, { boldBodySize: false })) {
    if (!levels.has(p) && !outlineSizes.has(sizeKey(p.size))) levels.set(p, level);
  }
  return levels;
}
