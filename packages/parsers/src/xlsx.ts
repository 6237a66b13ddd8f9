import { readFile } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
import type { FlowBlock, Origin, TableBlock, TableCell } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { decodeEntities } from './html.js';
import { assertTableSize } from './limits.js';
import { assertOfficeOpenXml, assertOle2, errorMessage } from './ooxml.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { libraryOrigin } from './versions.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';
import { readZipTexts } from './zip-entries.js';

/** The three workbook containers SheetJS reads for us; each is checked before SheetJS sees the bytes. */
export type SpreadsheetFormat = 'XLSX' | 'XLS' | 'ODS';

/** Cells as Excel displays them, by position; merges kept apart. */
interface SheetCells {
  text: Map<string, string>;
  /** Number, date or boolean cells (SheetJS types n, d, b): the "numeric body" of the header rule. */
  numeric: Set<string>;
  merges: XLSX.Range[];
}

interface Rect {
  r0: number;
  c0: number;
  r1: number;
  c1: number;
}

const key = (r: number, c: number): string => `${r},${c}`;

function sheetCells(sheet: XLSX.WorkSheet): SheetCells {
  const text = new Map<string, string>();
  const numeric = new Set<string>();
  for (const address of Object.keys(sheet)) {
    if (address.startsWith('!')) continue;
    const { r, c } = XLSX.utils.decode_cell(address);
    const cell = sheet[address] as XLSX.CellObject | undefined;
    if (r < 0 || c < 0 || !cell || cell.t === 'z') continue;
    // format_cell gives the cached display text (`w`) and formats `v` when a writer left `w` out;
    // formulas are read as their cached values (cellFormula: false), never recomputed.
    const shown = cell.t === 'e' ? (cell.w ?? '') : XLSX.utils.format_cell(cell);
    if (shown === '') continue;
    text.set(key(r, c), shown);
    if (cell.t === 'n' || cell.t === 'd' || cell.t === 'b') numeric.add(key(r, c));
  }
  // A merge only matters when its top-left cell holds something; an empty merged block is formatting.
  const merges = (sheet['!merges'] ?? []).filter((m) => text.has(key(m.s.r, m.s.c)));
  return { text, numeric, merges };
}

/** Occupied positions: non-empty cells and the whole area of every merge that carries text. */
function occupancy(cells: SheetCells): Set<string> {
  const occupied = new Set(cells.text.keys());
  for (const m of cells.merges) {
    for (let r = m.s.r; r <= m.e.r; r += 1) for (let c = m.s.c; c <= m.e.c; c += 1) occupied.add(key(r, c));
  }
  return occupied;
}

type Point = [number, number];

/** Real sheets nest a few levels of blocks; this bounds the recursion, not what a sheet may hold. */
const MAX_CUT_DEPTH = 64;

function points(occupied: Set<string>): Point[] {
  return [...occupied].map((k) => k.split(',').map(Number) as Point);
}

function boundingRect(pts: readonly Point[]): Rect | undefined {
  if (pts.length === 0) return undefined;
  const rect: Rect = { r0: Infinity, c0: Infinity, r1: -Infinity, c1: -Infinity };
  for (const [r, c] of pts) {
    rect.r0 = Math.min(rect.r0, r);
    rect.c0 = Math.min(rect.c0, c);
    rect.r1 = Math.max(rect.r1, r);
    rect.c1 = Math.max(rect.c1, c);
  }
  return rect;
}

/** Splits occupied positions where a whole row (axis 0) or column (axis 1) in between is empty. */
function cut(pts: readonly Point[], axis: 0 | 1): Point[][] {
  const sorted = [...pts].sort((a, b) => a[axis] - b[axis]);
  const groups: Point[][] = [];
  let last = -Infinity;
  for (const p of sorted) {
    if (p[axis] > last + 1) groups.push([]);
    groups[groups.length - 1]!.push(p);
    last = p[axis];
  }
  return groups;
}

/**
 * A sheet's regions by recursive XY-cut on the occupied positions: split at fully empty rows,
 * then each band at fully empty columns, and so on until neither direction splits. A merged area
 * counts as occupied, so no cut runs through a merge. Works on the cells present (sorting), never
 * on the sheet's area, which a sparse sheet makes huge. Regions come out top to bottom, then left
 * to right within a band.
 */
function regions(pts: readonly Point[], axis: 0 | 1 = 0, triedOther = false, depth = 0): Rect[] {
  // A crafted sheet could nest cuts as deep as it has rows: past this depth a block stays whole.
  if (depth > MAX_CUT_DEPTH) return [boundingRect(pts)!];
  const groups = cut(pts, axis);
  const other = axis === 0 ? 1 : 0;
  if (groups.length <= 1) return triedOther ? [boundingRect(pts)!] : regions(pts, other, true, depth + 1);
  return groups.flatMap((g) => regions(g, other, false, depth + 1));
}

function inside(k: string, rect: Rect): boolean {
  const [r, c] = k.split(',').map(Number) as [number, number];
  return r >= rect.r0 && r <= rect.r1 && c >= rect.c0 && c <= rect.c1;
}

/**
 * Header rule: the first row is a header row when the region has a body (2+ rows), every
 * non-empty cell of the first row is text, and at least one column has a text cell on top of a
 * body whose non-empty cells are all numbers, dates or booleans (text over a numeric body).
 */
function headerRowsOf(cells: SheetCells, rect: Rect): number {
  if (rect.r1 <= rect.r0) return 0;
  let topFilled = 0;
  for (let c = rect.c0; c <= rect.c1; c += 1) {
    const k = key(rect.r0, c);
    if (!cells.text.has(k)) continue;
    if (cells.numeric.has(k)) return 0;
    topFilled += 1;
  }
  if (topFilled === 0) return 0;
  for (let c = rect.c0; c <= rect.c1; c += 1) {
    if (!cells.text.has(key(rect.r0, c))) continue;
    let numbers = 0;
    let texts = 0;
    for (let r = rect.r0 + 1; r <= rect.r1; r += 1) {
      const k = key(r, c);
      if (cells.numeric.has(k)) numbers += 1;
      else if (cells.text.has(k)) texts += 1;
    }
    if (numbers > 0 && texts === 0) return 1;
  }
  return 0;
}

/** One region as a table block: merged cells as spans, every other position one cell ('' when empty). */
function regionTable(cells: SheetCells, rect: Rect, origin: Origin): TableBlock {
  const covered = new Set<string>();
  const spans = new Map<string, { rowSpan: number; colSpan: number }>();
  for (const m of cells.merges) {
    if (!inside(key(m.s.r, m.s.c), rect)) continue;
    spans.set(key(m.s.r, m.s.c), { rowSpan: m.e.r - m.s.r + 1, colSpan: m.e.c - m.s.c + 1 });
    for (let r = m.s.r; r <= m.e.r; r += 1) for (let c = m.s.c; c <= m.e.c; c += 1) if (r !== m.s.r || c !== m.s.c) covered.add(key(r, c));
  }
  const headerRows = headerRowsOf(cells, rect);
  const out: TableCell[] = [];
  for (let r = rect.r0; r <= rect.r1; r += 1) {
    for (let c = rect.c0; c <= rect.c1; c += 1) {
      const k = key(r, c);
      if (covered.has(k)) continue;
      const span = spans.get(k) ?? { rowSpan: 1, colSpan: 1 };
      const cell: TableCell = { row: r - rect.r0, col: c - rect.c0, ...span, text: cells.text.get(k) ?? '' };
      if (r - rect.r0 < headerRows) cell.header = true;
      out.push(cell);
    }
  }
  return { type: 'table', rows: rect.r1 - rect.r0 + 1, columns: rect.c1 - rect.c0 + 1, headerRows, cells: out, origin };
}

/** `<style:style>` elements, `<table:table>` start tags, and one attribute of a tag. */
const STYLE = /<style:style\b([^>]*?)(\/)?>/g;
const TABLE_TAG = /<table:table\b([^>]*)>/g;
const attribute = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/**
 * Names of the hidden sheets of an ODS: SheetJS does not read a sheet's visibility from ODF,
 * which keeps it in the table's automatic style (`<style:table-properties table:display="false">`).
 * Read from content.xml after the zip guard passed it (bounded size, no DTD).
 */
async function odsHiddenSheets(buffer: Buffer): Promise<Set<string>> {
  const content = (await readZipTexts(buffer, (name) => name === 'content.xml')).get('content.xml');
  const hidden = new Set<string>();
  if (content === undefined) return hidden;
  const hiddenStyles = new Set<string>();
  for (const m of content.matchAll(STYLE)) {
    const name = attribute(m[1] ?? '', 'style:name');
    if (!name || m[2] === '/' || attribute(m[1] ?? '', 'style:family') !== 'table') continue;
    const start = m.index + m[0].length;
    const end = content.indexOf('</style:style>', start);
    if (/\stable:display="false"/.test(content.slice(start, end < 0 ? start : end))) hiddenStyles.add(name);
  }
  for (const m of content.matchAll(TABLE_TAG)) {
    const style = attribute(m[1] ?? '', 'table:style-name');
    const name = attribute(m[1] ?? '', 'table:name');
    if (style && name && hiddenStyles.has(style)) hidden.add(decodeEntities(name));
  }
  return hidden;
}

function assertContainer(buffer: Buffer, format: SpreadsheetFormat): void {
  if (format === 'XLS') assertOle2(buffer, 'XLS');
  else assertOfficeOpenXml(buffer, format);
}

/**
 * XLSX, XLS (BIFF) and ODS through one SheetJS code path: per sheet a level-2 heading with its
 * name, then one table per region of the sheet (see `regions`), cells as Excel displays them.
 * Read from a Buffer (`readFile` needs `set_fs` under ESM). `sheetRows` stops SheetJS from
 * materialising more than one row past the limit, so an oversized sheet fails fast. The ZIP
 * containers (XLSX, ODS) pass the zip-bomb and DTD guard first; XLS is an OLE2 file SheetJS reads
 * without inflating anything, so the row/column limits are its guard.
 */
export async function parseSpreadsheet(input: ParseInput, format: SpreadsheetFormat, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertContainer(buffer, format);
  if (format !== 'XLS') await assertSafeOfficeZip(buffer, format, limits);
  const origin = libraryOrigin('@e965/xlsx', 'native');
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(buffer, {
      type: 'buffer',
      cellDates: true,
      cellFormula: false,
      cellHTML: false,
      sheetRows: limits.maxSheetRows + 1,
    });
  } catch (err) {
    if (/password|encrypt/i.test(errorMessage(err))) {
      throw new DocumentError('encrypted_document', `the ${format} file is password-protected`, { cause: err });
    }
    throw new DocumentError('corrupt_document', `not a readable ${format} file: ${errorMessage(err)}`, { cause: err });
  }
  if (workbook.SheetNames.length === 0) throw new DocumentError('empty_document', 'the workbook has no sheets');
  const odsHidden = format === 'ODS' ? await odsHiddenSheets(buffer) : new Set<string>();

  const body: FlowBlock[] = [];
  for (const [index, name] of workbook.SheetNames.entries()) {
    const sheet = workbook.Sheets[name];
    // Hidden: 1 = hidden, 2 = "very hidden" (only VBA can show it); both are hidden to a reader.
    const hidden = (workbook.Workbook?.Sheets?.[index]?.Hidden ?? 0) > 0 || odsHidden.has(name);
    // SheetJS keeps the declared size in `!fullref` when `sheetRows` cut the sheet short: refuse
    // rather than silently drop the rows past the limit.
    const declared = sheet?.['!fullref'];
    if (declared) assertTableSize(`sheet "${name}"`, XLSX.utils.decode_range(declared).e.r + 1, 0, limits);
    const cells = sheet ? sheetCells(sheet) : { text: new Map<string, string>(), numeric: new Set<string>(), merges: [] };
    // A merge's area is expanded cell by cell below: a merge beyond the limits is refused first.
    for (const m of cells.merges) assertTableSize(`sheet "${name}"`, m.e.r + 1, m.e.c + 1, limits);
    const occupied = points(occupancy(cells));
    const used = boundingRect(occupied);
    body.push({ type: 'heading', level: 2, text: name, origin });
    if (!used) {
      // An empty sheet still shows up as an empty table, so every sheet is listed.
      body.push({ type: 'table', rows: 0, columns: 0, headerRows: 0, cells: [], origin, name, ...(hidden ? { hidden } : {}) });
      continue;
    }
    // Row/column counts from A1: what a user sees as the sheet's size.
    assertTableSize(`sheet "${name}"`, used.r1 + 1, used.c1 + 1, limits);
    for (const rect of regions(occupied)) {
      body.push({ ...regionTable(cells, rect, origin), name, ...(hidden ? { hidden } : {}) });
    }
  }
  return parsedDocument({ origin, body });
}

export function parseXlsx(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  return parseSpreadsheet(input, 'XLSX', limits);
}
