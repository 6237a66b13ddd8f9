import { centerY, height } from './geometry.js';
import type { Boxed } from './layout-types.js';

/**
 * Reading order by recursive XY-cut on whitespace. `unit` is the body font size: gutters and
 * column widths are measured in it.
 *
 * A region is split left/right at its widest full-height gutter first (columns read one after the
 * other, whatever order the content stream drew them in). Without one it is cut into horizontal
 * bands, and consecutive bands that share a gutter are kept together, so a full-width title above
 * two columns reads first and the columns below it are then split, instead of being read line by
 * line across the gutter. Each level is O(n log n); the depth is the nesting of the layout.
 */
export function readingOrder<T extends Boxed>(items: readonly T[], unit: number): T[] {
  const out: T[] = [];
  cut(items, Math.max(unit, 1), out, 0);
  return out;
}

/** A gutter narrower than this share of the unit is a word space, not a column break. */
const MIN_GUTTER = 0.6;
/** A column narrower than this many units is a bullet, number or label column (a form, a table), read row by row with its neighbour. */
const MIN_COLUMN = 8;
const MAX_DEPTH = 48;

function cut<T extends Boxed>(items: readonly T[], unit: number, out: T[], depth: number): void {
  if (items.length <= 1 || depth > MAX_DEPTH) {
    out.push(...byRows(items));
    return;
  }
  const split = verticalSplit(items, unit);
  if (split) {
    cut(split[0], unit, out, depth + 1);
    cut(split[1], unit, out, depth + 1);
    return;
  }
  const groups = bandGroups(items, unit);
  if (groups.length <= 1) {
    out.push(...byRows(items));
    return;
  }
  for (const group of groups) cut(group, unit, out, depth + 1);
}

/** Rows top to bottom (a row keeps the band of its first item), each left to right. */
export function byRows<T extends Boxed>(items: readonly T[]): T[] {
  const sorted = [...items].sort((a, b) => centerY(a.bbox) - centerY(b.bbox));
  const out: T[] = [];
  let row: T[] = [];
  let center = 0;
  let half = 0;
  const flush = (): void => {
    out.push(...row.sort((a, b) => a.bbox[0] - b.bbox[0]));
    row = [];
  };
  for (const item of sorted) {
    const c = centerY(item.bbox);
    if (row.length > 0 && Math.abs(c - center) > 0.4 * Math.max(half * 2, height(item.bbox))) flush();
    if (row.length === 0) {
      center = c;
      half = height(item.bbox) / 2;
    }
    row.push(item);
  }
  flush();
  return out;
}

type Interval = [number, number];

/** The widest gutter that has a real column on each side, as an x position, or undefined. */
function widestGutter(intervals: readonly Interval[], unit: number): number | undefined {
  if (intervals.length < 2) return undefined;
  const first = intervals[0]![0];
  const last = intervals[intervals.length - 1]![1];
  let best: number | undefined;
  let bestWidth = MIN_GUTTER * unit;
  for (let i = 1; i < intervals.length; i += 1) {
    const left = intervals[i - 1]![1];
    const right = intervals[i]![0];
    const gap = right - left;
    if (gap >= bestWidth && left - first >= MIN_COLUMN * unit && last - right >= MIN_COLUMN * unit) {
      best = (left + right) / 2;
      bestWidth = gap;
    }
  }
  return best;
}

/** The x extents of the items, merged where they touch, in order. */
function coverage(items: readonly Boxed[]): Interval[] {
  const sorted = items.map((i): Interval => [i.bbox[0], i.bbox[2]]).sort((a, b) => a[0] - b[0]);
  return mergeSorted(sorted);
}

function mergeSorted(sorted: readonly Interval[]): Interval[] {
  const merged: Interval[] = [];
  for (const [x0, x1] of sorted) {
    const last = merged[merged.length - 1];
    if (last && x0 <= last[1]) last[1] = Math.max(last[1], x1);
    else merged.push([x0, x1]);
  }
  return merged;
}

function mergeIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  return mergeSorted([...a, ...b].sort((p, q) => p[0] - q[0]));
}

function verticalSplit<T extends Boxed>(items: readonly T[], unit: number): [T[], T[]] | undefined {
  const at = widestGutter(coverage(items), unit);
  if (at === undefined) return undefined;
  const left: T[] = [];
  const right: T[] = [];
  for (const item of items) (item.bbox[2] <= at ? left : right).push(item);
  // A column holds several lines (or a figure): a lone line beside another one is no column, as
  // in the labels of a diagram or a heading under a caption that ends further right.
  const column = (side: T[]): boolean => side.length >= 2 || (side.length === 1 && height(side[0]!.bbox) >= 2 * unit);
  return column(left) && column(right) && !cellsBesideCells(left) && !cellsBesideCells(right) ? [left, right] : undefined;
}

/** Rows (pieces sharing a baseline band) that hold more than one piece. */
function rowsWithSeveralPieces<T extends Boxed>(side: readonly T[]): number {
  const ordered = byRows(side);
  let rows = 0;
  let inRow = 0;
  let center = Number.NaN;
  for (const item of ordered) {
    const c = centerY(item.bbox);
    if (Number.isNaN(center) || Math.abs(c - center) > 0.4 * height(item.bbox)) {
      if (inRow > 1) rows += 1;
      center = c;
      inRow = 0;
    }
    inRow += 1;
  }
  return inRow > 1 ? rows + 1 : rows;
}

/** Below this share of lines filling half their side, a side is short cells (a table, a form), not running text. */
const MIN_FILLED = 0.5;

/**
 * A side of a would-be column split that is mostly short pieces (cells of a table without rules,
 * the labels of a form: `Region`, `North`, `South` beside `Revenue`, `1200`, `800`) is no text
 * column: its rows read across with their neighbours. Text columns are mostly lines that fill
 * their width. (Three pieces at least: two say nothing.)
 */
function cellsBesideCells<T extends Boxed>(side: readonly T[]): boolean {
  if (side.length < 3) return false;
  // A side whose rows hold several pieces (labels and their values) is a form block of its own,
  // such as the customer and vehicle boxes side by side on an invoice: the split stands.
  if (rowsWithSeveralPieces(side) >= 2) return false;
  const x0 = Math.min(...side.map((i) => i.bbox[0]));
  const x1 = Math.max(...side.map((i) => i.bbox[2]));
  const filled = side.filter((i) => i.bbox[2] - i.bbox[0] >= 0.5 * (x1 - x0)).length;
  return filled / side.length < MIN_FILLED;
}

/**
 * Horizontal bands (items whose vertical extents chain together), grouped: a band joins the
 * group before it while the group and the band together still have a gutter.
 */
function bandGroups<T extends Boxed>(items: readonly T[], unit: number): T[][] {
  const sorted = [...items].sort((a, b) => a.bbox[1] - b.bbox[1]);
  const bands: T[][] = [];
  let bottom = -Infinity;
  // Line boxes of tight leading touch: a sliver of overlap still separates two bands.
  const slack = 0.05 * unit;
  for (const item of sorted) {
    const band = bands[bands.length - 1];
    if (band && item.bbox[1] < bottom - slack) {
      band.push(item);
      bottom = Math.max(bottom, item.bbox[3]);
    } else {
      bands.push([item]);
      bottom = item.bbox[3];
    }
  }
  const groups: T[][] = [];
  let group: T[] = [];
  let covered: Interval[] = [];
  for (const band of bands) {
    const bandCoverage = coverage(band);
    if (group.length > 0) {
      const together = mergeIntervals(covered, bandCoverage);
      if (widestGutter(together, unit) !== undefined) {
        group.push(...band);
        covered = together;
        continue;
      }
      groups.push(group);
    }
    group = [...band];
    covered = bandCoverage;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
