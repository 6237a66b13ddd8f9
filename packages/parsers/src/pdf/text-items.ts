import type { BBox } from '@readpack/reading-package';
import type { Direction, TextRun } from './layout-types.js';

/** The parts of a pdfjs `TextItem` the layout reads. */
export interface RawTextItem {
  str: string;
  dir?: string;
  transform: readonly number[];
  width: number;
  height: number;
  fontName: string;
}

export interface FontFacts {
  bold: boolean;
  italic: boolean;
  vertical: boolean;
}

/** PDF user space → page coordinates (top-left origin, y down): pdfjs's viewport at scale 1. */
export type ToPage = (x: number, y: number) => [number, number];

/** Font names that say bold or italic (`ABCDEF+Helvetica-Bold`, TeX's `CMBX10`, `CMTI10`). */
const BOLD_NAME = /bold|black|heavy|semibold|demi|[-,]bd\b|cmbx|cmb\d|\+?\w*bx\d/i;
const ITALIC_NAME = /italic|oblique|[-,]it\b|cmti|cmsl|cmmi/i;

export function fontFactsFromName(name: string | undefined, flags: { bold?: boolean; italic?: boolean; black?: boolean; vertical?: boolean }): FontFacts {
  const base = (name ?? '').replace(/^[A-Z]{6}\+/, '');
  return {
    bold: flags.bold === true || flags.black === true || BOLD_NAME.test(base),
    italic: flags.italic === true || ITALIC_NAME.test(base),
    vertical: flags.vertical === true,
  };
}

/**
 * Measures pdfjs text items. A horizontal item's box runs from its origin along the text matrix's
 * x axis for `width`, from 0.2 of the size below the baseline to 0.8 above (fixed proportions:
 * the fonts' own ascents differ so much that lines would not group). A vertical item (a `V` CMap)
 * has its origin one size below the top of its first glyph and runs down for `height`.
 * Boxes are mapped to the page through `toPage`, so rotated pages and offset crop boxes fit.
 */
export function textRuns(items: readonly RawTextItem[], fontOf: (fontName: string) => FontFacts, toPage: ToPage): TextRun[] {
  const runs: TextRun[] = [];
  for (const item of items) {
    if (item.str === '' || item.transform.length < 6) continue;
    const [a, b, c, d, e, f] = item.transform as [number, number, number, number, number, number];
    const font = fontOf(item.fontName);
    const vertical = font.vertical || item.dir === 'ttb';
    const size = Math.hypot(c, d) || Math.hypot(a, b) || Math.abs(item.height);
    if (!Number.isFinite(size) || size <= 0 || ![e, f, item.width, item.height].every(Number.isFinite)) continue;
    let corners: [number, number][];
    /** The way the text advances, in PDF user space. */
    let advance: [number, number];
    if (vertical) {
      advance = [0, -1];
      const w = Math.max(Math.abs(item.width), size);
      const top = f + size;
      const bottom = top - Math.max(Math.abs(item.height), size);
      corners = [
        [e, top],
        [e + w, top],
        [e, bottom],
        [e + w, bottom],
      ];
    } else {
      const norm = Math.hypot(a, b) || 1;
      const [ux, uy] = [a / norm, b / norm];
      const upNorm = Math.hypot(c, d) || 1;
      const [vx, vy] = [c / upNorm, d / upNorm];
      advance = [ux, uy];
      const w = item.width;
      const below = -0.2 * size;
      const above = 0.8 * size;
      corners = [
        [e + vx * below, f + vy * below],
        [e + ux * w + vx * below, f + uy * w + vy * below],
        [e + vx * above, f + vy * above],
        [e + ux * w + vx * above, f + uy * w + vy * above],
      ];
    }
    const [px, py] = toPage(e, f);
    const [qx, qy] = toPage(e + advance[0] * size, f + advance[1] * size);
    const direction = directionOf(qx - px, qy - py);
    runs.push({ text: item.str, bbox: boxOf(corners.map(([x, y]) => toPage(x, y))), size, bold: font.bold, italic: font.italic, direction });
  }
  return runs;
}

/** The box around the points (a loop, not spreads: it runs for every text item of a document). */
function boxOf(points: readonly [number, number][]): BBox {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

function directionOf(dx: number, dy: number): Direction {
  if (Math.abs(dx) >= Math.abs(dy)) return dx >= 0 ? 'right' : 'left';
  return dy > 0 ? 'down' : 'up';
}

/** A page's layout frame: boxes turned so that its main text reads left to right, lines going down. */
export interface LayoutFrame {
  toFrame: (b: BBox) => BBox;
  toPage: (b: BBox) => BBox;
  /** The frame's height in points (where running headers and footers are looked for). */
  height: number;
}

/**
 * The frame for text reading in `direction` on a page of the given size. Text going `down`
 * (vertical CJK, or a page turned a quarter clockwise) has its columns from right to left: the
 * frame turns it a quarter so they become lines from top to bottom. Every layout step then works
 * unchanged, and `toPage` turns boxes back.
 */
export function layoutFrame(direction: Direction, width: number, height: number): LayoutFrame {
  switch (direction) {
    case 'right':
      return { toFrame: (b) => b, toPage: (b) => b, height };
    case 'down':
      return { toFrame: (b) => [b[1], width - b[2], b[3], width - b[0]], toPage: (b) => [width - b[3], b[0], width - b[1], b[2]], height: width };
    case 'up':
      return { toFrame: (b) => [height - b[3], b[0], height - b[1], b[2]], toPage: (b) => [b[1], height - b[2], b[3], height - b[0]], height: width };
    case 'left': {
      const turn = (b: BBox): BBox => [width - b[2], height - b[3], width - b[0], height - b[1]];
      return { toFrame: turn, toPage: turn, height };
    }
  }
}

/** The direction most of the page's characters read in. */
export function mainDirection(runs: readonly TextRun[]): Direction {
  const chars: Record<Direction, number> = { right: 0, down: 0, left: 0, up: 0 };
  for (const run of runs) chars[run.direction] += run.text.length;
  let best: Direction = 'right';
  for (const d of ['down', 'left', 'up'] as const) if (chars[d] > chars[best]) best = d;
  return best;
}
