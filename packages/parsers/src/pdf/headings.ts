import type { Paragraph } from './paragraphs.js';

/** Sizes are compared in half points: what one font size step in a document can be told apart by. */
const sizeKey = (size: number): number => Math.round(size * 2) / 2;

/**
 * A heading is short: a few lines, no sentence ending in a comma or a colon's list, a word of two
 * letters or more (a figure's labels, `β γ α P`, `s3 s1`, are single letters).
 */
function looksLikeHeading(p: Paragraph): boolean {
  return !p.marker && p.lineCount <= 3 && p.text.length <= 160 && /\p{L}{2}/u.test(p.text) && !/[,;]$/u.test(p.text);
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

/** A paragraph that could take an outline entry's title: where it is, for the nearest match. */
interface Candidate {
  ordinal: number;
  /** Its page's position in the document's page sequence. */
  page: number;
  top: number;
  sizeKey: number;
}

/**
 * What the document-wide heading decision needs of every paragraph, gathered one paragraph at a
 * time in document order (`add`), so that a document streamed page by page never holds its
 * paragraphs: characters per size (the body size), the largest size of a heading-like paragraph
 * per size step, and the paragraphs whose title an outline entry has. A paragraph is known by its
 * ordinal, the count of paragraphs added before it; `decide` gives the levels, asked for each
 * paragraph with that ordinal (a second pass over the same paragraphs).
 *
 * The rules: with an outline that matches some paragraphs, its entries give their paragraphs'
 * levels (on the entry's page, or the one before or after, nearest to the destination), and
 * besides them only paragraphs set clearly larger than the body, in a size the outline's headings
 * do not have, are headings (bold lines at body size are run-in labels then, `Definition 3`,
 * `Beweis`; a larger size the outline uses but an entry is missing for was left out by its
 * author, LaTeX's starred `\chapter*`). Without one, font statistics: paragraphs set clearly
 * larger than the body are headings, their distinct sizes (largest first) giving levels 1, 2…,
 * and short bold paragraphs at body size are one level below the smallest of them. Levels stop at 6.
 */
export class HeadingEvidence {
  private readonly chars = new Map<number, number>();
  private readonly largestHeadingLike = new Map<number, number>();
  // Titles are looked up by key: an outline of thousands of entries must not scan every paragraph each.
  private readonly candidates = new Map<string, Candidate[]>();
  private readonly wanted: Set<string>;
  private count = 0;

  constructor(private readonly targets: readonly OutlineTarget[]) {
    this.wanted = new Set(targets.map((t) => headingKey(t.title)).filter((key) => key !== ''));
  }

  /** The next paragraph in document order, on the page at `page` in the page sequence; returns its ordinal. */
  add(p: Paragraph, page: number): number {
    const ordinal = this.count;
    this.count += 1;
    const key = sizeKey(p.size);
    this.chars.set(key, (this.chars.get(key) ?? 0) + p.text.length);
    if (looksLikeHeading(p)) this.largestHeadingLike.set(key, Math.max(this.largestHeadingLike.get(key) ?? -Infinity, p.size));
    if (this.wanted.size > 0 && !p.marker && p.lineCount <= 3) {
      const title = headingKey(p.text);
      if (this.wanted.has(title)) {
        let list = this.candidates.get(title);
        if (!list) this.candidates.set(title, (list = []));
        list.push({ ordinal, page, top: p.bbox[1], sizeKey: key });
      }
    }
    return ordinal;
  }

  /** The body text size: the size most characters have (the smaller one of a tie); 10 for a document without text. */
  bodySize(): number {
    let body = 10;
    let most = -1;
    for (const [size, n] of this.chars) {
      if (n > most || (n === most && size < body)) [body, most] = [size, n];
    }
    return body;
  }

  decide(): HeadingLevels {
    const bodySize = this.bodySize();
    const outlined = this.matchOutline();
    const outlineSizes = new Set([...outlined.values()].map((m) => m.sizeKey));
    const largerSizes = [...this.largestHeadingLike].filter(([, largest]) => largest >= bodySize * 1.15).map(([key]) => key).sort((a, b) => b - a);
    return new HeadingLevels(bodySize, new Map([...outlined].map(([ordinal, m]) => [ordinal, m.level])), outlineSizes, largerSizes);
  }

  /** Each outline entry in order takes the nearest paragraph with its title not yet taken. */
  private matchOutline(): Map<number, { level: number; sizeKey: number }> {
    const matched = new Map<number, { level: number; sizeKey: number }>();
    for (const target of this.targets) {
      const key = headingKey(target.title);
      if (key === '') continue;
      let best: Candidate | undefined;
      let bestDistance = Infinity;
      for (const candidate of this.candidates.get(key) ?? []) {
        // A destination may sit on the page before or after its heading (an anchor set before a
        // page break, `\addcontentsline` after a `\chapter*`'s `\clearpage`): its own page wins.
        const pagesOff = target.page === undefined ? 0 : Math.abs(candidate.page - target.page);
        if (matched.has(candidate.ordinal) || pagesOff > 1) continue;
        const distance = pagesOff * 1e6 + (target.y === undefined || pagesOff > 0 ? 0 : Math.abs(candidate.top - target.y));
        if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
      }
      if (best) matched.set(best.ordinal, { level: Math.min(6, Math.max(1, target.level)), sizeKey: best.sizeKey });
    }
    return matched;
  }
}

/** The heading levels HeadingEvidence decided: asked per paragraph, with the ordinal `add` gave it. */
export class HeadingLevels {
  constructor(
    readonly bodySize: number,
    private readonly outlined: ReadonlyMap<number, number>,
    private readonly outlineSizes: ReadonlySet<number>,
    /** Size steps of paragraphs set clearly larger than the body, largest first: levels 1, 2… */
    private readonly largerSizes: readonly number[],
  ) {}

  levelOf(p: Paragraph, ordinal: number): number | undefined {
    const key = sizeKey(p.size);
    const larger = looksLikeHeading(p) && p.size >= this.bodySize * 1.15;
    // An outline that matches nothing here (a stale or foreign one) says nothing about headings.
    if (this.outlined.size > 0) {
      const level = this.outlined.get(ordinal);
      if (level !== undefined) return level;
      return larger && !this.outlineSizes.has(key) ? this.largerLevel(key) : undefined;
    }
    if (larger) return this.largerLevel(key);
    const boldBodySize = p.bold && looksLikeHeading(p) && p.size >= this.bodySize * 0.95 && p.lineCount <= 2 && p.text.length <= 100 && !/[.:]$/u.test(p.text);
    return boldBodySize ? Math.min(6, this.largerSizes.length + 1) : undefined;
  }

  private largerLevel(key: number): number {
    return Math.min(6, this.largerSizes.indexOf(key) + 1);
  }
}

/** The heading levels of a document's paragraphs, page by page (in memory: HeadingEvidence in one call). */
export function documentHeadings(pages: readonly (readonly Paragraph[])[], outline: readonly OutlineTarget[]): Map<Paragraph, number> {
  const evidence = new HeadingEvidence(outline);
  const ordinals = new Map<Paragraph, number>();
  pages.forEach((paragraphs, page) => {
    for (const p of paragraphs) ordinals.set(p, evidence.add(p, page));
  });
  const levels = evidence.decide();
  const found = new Map<Paragraph, number>();
  for (const [p, ordinal] of ordinals) {
    const level = levels.levelOf(p, ordinal);
    if (level !== undefined) found.set(p, level);
  }
  return found;
}
