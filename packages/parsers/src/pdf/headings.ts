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

/** A heading is short: a few lines, no sentence ending in a comma or a colon's list, some letters. */
function looksLikeHeading(p: Paragraph): boolean {
  return !p.marker && p.lineCount <= 3 && p.text.length <= 160 && (p.text.match(/\p{L}/gu)?.length ?? 0) >= 2 && !/[,;]$/u.test(p.text);
}

/**
 * Heading levels from font statistics: paragraphs set clearly larger than the body are headings,
 * their distinct sizes (largest first) giving levels 1, 2…; short bold paragraphs at body size
 * are headings one level below the smallest larger size. Levels stop at 6.
 */
export function statisticalHeadings(paragraphs: readonly Paragraph[], bodySize: number): Map<Paragraph, number> {
  const larger = paragraphs.filter((p) => looksLikeHeading(p) && p.size >= bodySize * 1.15);
  const sizes = [...new Set(larger.map((p) => sizeKey(p.size)))].sort((a, b) => b - a);
  const levels = new Map<Paragraph, number>();
  for (const p of larger) levels.set(p, Math.min(6, sizes.indexOf(sizeKey(p.size)) + 1));
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
      if (levels.has(p) || (target.page !== undefined && page !== target.page)) continue;
      const distance = target.y === undefined ? 0 : Math.abs(p.bbox[1] - target.y);
      if (distance < bestDistance) [best, bestDistance] = [p, distance];
    }
    if (best) levels.set(best, Math.min(6, Math.max(1, target.level)));
  }
  return levels;
}
