import type { BBox } from '@readpack/reading-package';
import type { RuledTable } from '../graphics-types.js';
import type { LineArt } from './operator-walk.js';
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
/** Rows lower than this (points, median) cannot hold a line of text: hatching or a mesh. */
const MIN_MEDIAN_ROW_HEIGHT = 7;
/** Columns narrower than this (points, median) cannot hold a word. */
const MIN_MEDIAN_COLUMN_WIDTH = 10;
/** Share of cells that must be closed by lines on their inner sides. */
const MIN_CLOSED_SHARE = 0.8;
/** More line crossings than this in one connected set of rules is line art (e.g. 150 × 130). */
const MAX_GRID_POSITIONS = 20_000;
/** Drawn shapes per cell beyond which a grid is a diagram (tables hold text, not drawings). */
const MAX_ART_PER_CELL = 0.5;
/** Share of the grid's area drawn shapes may span before it is a plot rather than a table. */
const MAX_ART_COVER = 0.5;
/** How far inside the grid's edges a closed outline may run and still be its frame (points). */
const FRAME_SLACK = 4;
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

/**
 * @param art the page's curves, slanted lines and non-rectangular fills: a grid full of
 *   them is a diagram (a plot's grid, a triangulated square), not a table.
 */
export function findRuledTables(rulings: readonly Ruling[], art: readonly LineArt[] = []): RuledTable[] {
  const tables: RuledTable[] = [];
  for (const component of crossingComponents(rulings)) {
    const table = latticeOf(component);
    if (table && !isDiagram(table, art)) tables.push(table);
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
  let xs = boundariesOf(component.filter((r) => r.orientation === 'v'));
  let ys = boundariesOf(component.filter((r) => r.orientation === 'h'));
  let walls: Walls;
  let cells: GridCell[];
  // Graph paper and hatching, not a table; the guard also bounds the work below.
  if (xs.length * ys.length > MAX_GRID_POSITIONS) return undefined;
  // Prune and trim until neither changes the grid: trimming a frame band can leave lines that
  // only walled that band.
  for (;;) {
    [xs, ys] = withoutPhantoms(xs, ys);
    if (xs.length < 2 || ys.length < 2) return undefined;
    walls = wallsOf(xs, ys);
    const trimmed = trimFrameBands(walls, ys.length - 1, xs.length - 1);
    cells = trimmed.cells;
    if (trimmed.r0 === 0 && trimmed.c0 === 0 && trimmed.r1 === ys.length - 1 && trimmed.c1 === xs.length - 1) break;
    xs = xs.slice(trimmed.c0, trimmed.c1 + 1);
    ys = ys.slice(trimmed.r0, trimmed.r1 + 1);
  }
  const rows = ys.length - 1;
  const columns = xs.length - 1;
  // A lone box is a frame; one row or column needs interior lines to be a table.
  if (!((rows >= 2 && columns >= 2) || rows >= 3 || columns >= 3) || cells.length < 2) return undefined;
  if (!looksLikeTable(xs, ys, walls, cells)) return undefined;
  const x = (i: number) => (xs[i] as Boundary).pos;
  const y = (i: number) => (ys[i] as Boundary).pos;
  const bbox: BBox = [x(0), y(0), x(columns), y(rows)];
  if (bbox[2] - bbox[0] < MIN_TABLE_SIDE || bbox[3] - bbox[1] < MIN_TABLE_SIDE) return undefined;
  const table: RuledTable = {
    bbox,
    rows,
    columns,
    cells: cells.map((cell) => ({
      ...cell,
      bbox: [x(cell.col), y(cell.row), x(cell.col + cell.colSpan), y(cell.row + cell.rowSpan)],
    })),
  };
  if (rows >= 2 && setsOffHeader(ys)) table.headerRows = 1;
  return table;
}

/**
 * Drops line positions that wall off no grid position: tick marks on a chart axis, a rule that
 * merely touches the grid. Repeated because each removal widens the neighbouring rows.
 */
function withoutPhantoms(xs: Boundary[], ys: Boundary[]): [Boundary[], Boundary[]] {
  for (;;) {
    if (xs.length < 2 || ys.length < 2) return [xs, ys];
    const walls = wallsOf(xs, ys);
    const keptXs = xs.filter((_, col) => ys.slice(1).some((_y, row) => walls.betweenColumns(row, col)));
    const keptYs = ys.filter((_, row) => xs.slice(1).some((_x, col) => walls.betweenRows(row, col)));
    if (keptXs.length === xs.length && keptYs.length === ys.length) return [xs, ys];
    [xs, ys] = [keptXs, keptYs];
  }
}

/**
 * Tells tables from line art that happens to cross (function plots, meshes, space-filling curves):
 * a table's rows and columns can hold text, and its cells are closed by lines on every inner side.
 */
function looksLikeTable(xs: Boundary[], ys: Boundary[], walls: Walls, cells: GridCell[]): boolean {
  const heights = ys.slice(1).map((b, i) => b.pos - (ys[i] as Boundary).pos);
  const widths = xs.slice(1).map((b, i) => b.pos - (xs[i] as Boundary).pos);
  if (median(heights) < MIN_MEDIAN_ROW_HEIGHT || median(widths) < MIN_MEDIAN_COLUMN_WIDTH) return false;
  const rows = heights.length;
  const columns = widths.length;
  const closed = cells.filter((cell) => {
    const right = cell.col + cell.colSpan;
    const bottom = cell.row + cell.rowSpan;
    for (let r = cell.row; r < bottom; r += 1) if (right < columns && !walls.betweenColumns(r, right)) return false;
    for (let c = cell.col; c < right; c += 1) if (bottom < rows && !walls.betweenRows(bottom, c)) return false;
    return true;
  });
  return closed.length >= MIN_CLOSED_SHARE * cells.length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Many drawn shapes inside the grid, or shapes spread over most of it (a plotted curve). */
function isDiagram(table: RuledTable, art: readonly LineArt[]): boolean {
  const [x0, y0, x1, y1] = table.bbox;
  const area = (x1 - x0) * (y1 - y0);
  let count = 0;
  let covered = 0;
  for (const { box, closed } of art) {
    const [a0, b0, a1, b1] = box;
    // A closed outline around the whole grid is its (rounded) frame or the page's.
    if (closed && a0 <= x0 + FRAME_SLACK && b0 <= y0 + FRAME_SLACK && a1 >= x1 - FRAME_SLACK && b1 >= y1 - FRAME_SLACK) continue;
    const cx = (a0 + a1) / 2;
    const cy = (b0 + b1) / 2;
    if (cx <= x0 || cx >= x1 || cy <= y0 || cy >= y1) continue;
    count += 1;
    covered += Math.max(0, Math.min(a1, x1) - Math.max(a0, x0)) * Math.max(0, Math.min(b1, y1) - Math.max(b0, y0));
  }
  return (count >= 2 && count >= MAX_ART_PER_CELL * table.cells.length) || covered >= MAX_ART_COVER * area;
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
