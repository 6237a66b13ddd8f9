import type { BBox } from '@readpack/reading-package';
import type { RuledTable } from '../graphics-types.js';
import type { Ruling } from './rulings.js';

/**
 * Ruled tables from rulings: connected sets of horizontal and vertical lines that cross, read as
 * a grid whose rows and columns are the distinct line positions. A grid position whose boundary
 * line to its neighbour is missing is merged with it (a spanning cell).
 */

/** Lines ending this close to another line still meet it (joints drawn short or long). */
const TOUCH_TOLERANCE = 2;
/** Line positions closer than this are one boundary (double rules, a stroke plus a bar). */
const BOUNDARY_CLUSTER = 3;
/** A boundary counts between two grid positions when lines cover this share of it. */
const MIN_BOUNDARY_COVERAGE = 0.5;
/** Grids smaller than this (points) either side are glyph art or check boxes, not tables. */
const MIN_TABLE_SIDE = 10;
/** A rule this much thicker than the other row rules sets off a header row. */
const HEADER_RULE_RATIO = 1.5;

interface Boundary {
  pos: number;
  rulings: Ruling[];
}

interface GridCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

export function findRuledTables(rulings: readonly Ruling[]): RuledTable[] {
  const tables: RuledTable[] = [];
  for (const component of crossingComponents(rulings)) {
    const table = latticeOf(component);
    if (table) tables.push(table);
  }
  return tables.sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
}

/** Groups rulings that cross or touch; sweeps verticals sorted by x so the cost follows the crossings. */
function crossingComponents(rulings: readonly Ruling[]): Ruling[][] {
  const horizontals = rulings.filter((r) => r.orientation === 'h');
  const verticals = rulings.filter((r) => r.orientation === 'v').sort((a, b) => a.pos - b.pos);
  const parent = Array.from({ length: horizontals.length + verticals.length }, (_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] ?? root;
    let node = i;
    while (parent[node] !== root) {
      const next = parent[node] ?? root;
      parent[node] = root;
      node = next;
    }
    return root;
  };
  const touched = new Set<number>();
  horizontals.forEach((h, hi) => {
    for (let vi = firstAtOrAfter(verticals, h.from - TOUCH_TOLERANCE); vi < verticals.length; vi += 1) {
      const v = verticals[vi] as Ruling;
      if (v.pos > h.to + TOUCH_TOLERANCE) break;
      if (h.pos < v.from - TOUCH_TOLERANCE || h.pos > v.to + TOUCH_TOLERANCE) continue;
      const j = horizontals.length + vi;
      parent[find(hi)] = find(j);
      touched.add(hi).add(j);
    }
  });
  const groups = new Map<number, Ruling[]>();
  for (const i of touched) {
    const ruling = i < horizontals.length ? horizontals[i] : verticals[i - horizontals.length];
    if (!ruling) continue;
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(ruling);
    else groups.set(root, [ruling]);
  }
  return [...groups.values()];
}

function firstAtOrAfter(sorted: readonly Ruling[], pos: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as Ruling).pos < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function boundariesOf(rulings: readonly Ruling[]): Boundary[] {
  const sorted = [...rulings].sort((a, b) => a.pos - b.pos);
  const boundaries: Boundary[] = [];
  let current: Ruling[] = [];
  const flush = () => {
    if (current.length > 0) boundaries.push({ pos: current.reduce((s, r) => s + r.pos, 0) / current.length, rulings: current });
    current = [];
  };
  for (const ruling of sorted) {
    const first = current[0];
    if (first && ruling.pos - first.pos > BOUNDARY_CLUSTER) flush();
    current.push(ruling);
  }
  flush();
  return boundaries;
}

/** Share of [a, b] the boundary's lines cover. */
function coverage(boundary: Boundary, a: number, b: number): number {
  const pieces = boundary.rulings
    .map((r) => [Math.max(a, r.from - TOUCH_TOLERANCE), Math.min(b, r.to + TOUCH_TOLERANCE)] as const)
    .filter(([from, to]) => to > from)
    .sort((p, q) => p[0] - q[0]);
  let covered = 0;
  let reach = a;
  for (const [from, to] of pieces) {
    if (to <= reach) continue;
    covered += to - Math.max(from, reach);
    reach = to;
  }
  return b > a ? covered / (b - a) : 0;
}

/** The grid's walls: which neighbouring positions a line separates. */
interface Walls {
  /** Between column c-1 and c in row r: `betweenColumns(r, c)`. */
  betweenColumns(row: number, col: number): boolean;
  /** Between row r-1 and r in column c. */
  betweenRows(row: number, col: number): boolean;
}

function wallsOf(xs: Boundary[], ys: Boundary[]): Walls {
  const memo = new Map<string, boolean>();
  const cached = (key: string, compute: () => boolean): boolean => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute();
      memo.set(key, value);
    }
    return value;
  };
  return {
    betweenColumns: (row, col) =>
      cached(`c${row},${col}`, () => coverage(xs[col] as Boundary, (ys[row] as Boundary).pos, (ys[row + 1] as Boundary).pos) >= MIN_BOUNDARY_COVERAGE),
    betweenRows: (row, col) =>
      cached(`r${row},${col}`, () => coverage(ys[row] as Boundary, (xs[col] as Boundary).pos, (xs[col + 1] as Boundary).pos) >= MIN_BOUNDARY_COVERAGE),
  };
}

/**
 * Cells of the sub-grid rows [r0, r1) × columns [c0, c1), in row-major order: each grows right
 * while no wall stops it, then down while the whole width is open and unclaimed, so that every
 * position ends up in exactly one rectangle even where the walls do not close one.
 */
function cellsOf(walls: Walls, r0: number, r1: number, c0: number, c1: number): GridCell[] {
  const claimed = Array.from({ length: r1 - r0 }, () => new Array<boolean>(c1 - c0).fill(false));
  const isClaimed = (r: number, c: number) => claimed[r - r0]?.[c - c0] === true;
  const cells: GridCell[] = [];
  for (let r = r0; r < r1; r += 1) {
    for (let c = c0; c < c1; c += 1) {
      if (isClaimed(r, c)) continue;
      let colSpan = 1;
      while (c + colSpan < c1 && !isClaimed(r, c + colSpan) && !walls.betweenColumns(r, c + colSpan)) colSpan += 1;
      let rowSpan = 1;
      while (r + rowSpan < r1 && rowOpenBelow(walls, r + rowSpan, c, colSpan, isClaimed)) rowSpan += 1;
      for (let dr = 0; dr < rowSpan; dr += 1) for (let dc = 0; dc < colSpan; dc += 1) (claimed[r + dr - r0] as boolean[])[c + dc - c0] = true;
      cells.push({ row: r, col: c, rowSpan, colSpan });
    }
  }
  return cells;
}

function rowOpenBelow(walls: Walls, row: number, col: number, colSpan: number, isClaimed: (r: number, c: number) => boolean): boolean {
  for (let c = col; c < col + colSpan; c += 1) {
    if (isClaimed(row, c) || walls.betweenRows(row, c)) return false;
    if (c > col && walls.betweenColumns(row, c)) return false;
  }
  return true;
}

/**
 * Leading and trailing bands that are one cell across the whole grid are the page's frame or
 * section dividers around the table (a form's boxed header, a notes box), not rows of it.
 */
function trimFrameBands(walls: Walls, rows: number, columns: number): { r0: number; r1: number; c0: number; c1: number; cells: GridCell[] } {
  let [r0, r1, c0, c1] = [0, rows, 0, columns];
  let cells = cellsOf(walls, r0, r1, c0, c1);
  for (let changed = true; changed; ) {
    changed = false;
    if (c1 - c0 >= 2) {
      const top = cells.find((cell) => cell.row === r0 && cell.col === c0 && cell.colSpan === c1 - c0);
      const bottom = cells.find((cell) => cell.row + cell.rowSpan === r1 && cell.col === c0 && cell.colSpan === c1 - c0);
      if (top && top.rowSpan < r1 - r0) [r0, changed] = [r0 + top.rowSpan, true];
      else if (bottom && bottom.row > r0) [r1, changed] = [bottom.row, true];
    }
    if (!changed && r1 - r0 >= 2) {
      const left = cells.find((cell) => cell.col === c0 && cell.row === r0 && cell.rowSpan === r1 - r0);
      const right = cells.find((cell) => cell.col + cell.colSpan === c1 && cell.row === r0 && cell.rowSpan === r1 - r0);
      if (left && left.colSpan < c1 - c0) [c0, changed] = [c0 + left.colSpan, true];
      else if (right && right.col > c0) [c1, changed] = [right.col, true];
    }
    if (changed) cells = cellsOf(walls, r0, r1, c0, c1);
  }
  return { r0, r1, c0, c1, cells };
}

function latticeOf(component: readonly Ruling[]): RuledTable | undefined {
  const xs = boundariesOf(component.filter((r) => r.orientation === 'v'));
  const ys = boundariesOf(component.filter((r) => r.orientation === 'h'));
  if (xs.length < 2 || ys.length < 2) return undefined;
  const walls = wallsOf(xs, ys);
  const { r0, r1, c0, c1, cells } = trimFrameBands(walls, ys.length - 1, xs.length - 1);
  const rows = r1 - r0;
  const columns = c1 - c0;
  // A lone box is a frame; one row or column needs interior lines to be a table.
  if (!((rows >= 2 && columns >= 2) || rows >= 3 || columns >= 3) || cells.length < 2) return undefined;
  const x = (i: number) => (xs[i] as Boundary).pos;
  const y = (i: number) => (ys[i] as Boundary).pos;
  const bbox: BBox = [x(c0), y(r0), x(c1), y(r1)];
  if (bbox[2] - bbox[0] < MIN_TABLE_SIDE || bbox[3] - bbox[1] < MIN_TABLE_SIDE) return undefined;
  const table: RuledTable = {
    bbox,
    rows,
    columns,
    cells: cells.map((cell) => ({
      row: cell.row - r0,
      col: cell.col - c0,
      rowSpan: cell.rowSpan,
      colSpan: cell.colSpan,
      bbox: [x(cell.col), y(cell.row), x(cell.col + cell.colSpan), y(cell.row + cell.rowSpan)],
    })),
  };
  if (rows >= 2 && setsOffHeader(ys.slice(r0, r1 + 1))) table.headerRows = 1;
  return table;
}

/** The rule under the first row is doubled, or clearly thicker than the other row rules. */
function setsOffHeader(rowBoundaries: Boundary[]): boolean {
  const underFirst = rowBoundaries[1];
  if (!underFirst) return false;
  const positions = underFirst.rulings.map((r) => r.pos);
  if (Math.max(...positions) - Math.min(...positions) >= 1) return true;
  const others = rowBoundaries.slice(2, -1).map(thickest);
  if (others.length === 0) return false;
  const sorted = others.sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  return thickest(underFirst) >= HEADER_RULE_RATIO * median;
}

function thickest(boundary: Boundary): number {
  return Math.max(...boundary.rulings.map((r) => r.thickness));
}
