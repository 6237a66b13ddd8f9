/**
 * The typed block model of the reading package (schema version 2): what every format, every
 * engine (text layer, OCR, MinerU) and every parser produces, so that a reader never needs to
 * know which of them ran. Documented for clients in docs/reading-package.md; the JSON Schema in
 * schema/reading-package.v2.schema.json describes the same shapes, and a test keeps the two in
 * step (`BLOCK_TYPES` against the schema's enum).
 *
 * Reading order is array order: `body` lists the main flow in the order a person reads it
 * (nested lists in pre-order), `furniture` the parts kept out of that flow (running headers and
 * footers, footnotes, speaker notes), in page order.
 */

/** Which kind of engine produced a part's text. */
export type Engine = 'native' | 'text-layer' | 'ocr' | 'mineru';

export interface Origin {
  /** Library or service that produced the part, e.g. `pdfjs-dist`, `mammoth`, `tesseract.js`, `mineru`. */
  parser: string;
  /** Its version, read from what is installed or what the service reported (never hard-coded). */
  version: string;
  engine: Engine;
}

/**
 * `[x0, y0, x1, y1]` with the origin at the page's top-left corner and y growing downwards, in
 * the page's unit (`PackagePage.unit`): PDF points (1/72 in) for PDF pages and slides, pixels for
 * uploaded images.
 */
export type BBox = [number, number, number, number];

export const FLOW_BLOCK_TYPES = ['heading', 'paragraph', 'list', 'list_item', 'table', 'figure', 'caption', 'code', 'formula'] as const;
export const FURNITURE_BLOCK_TYPES = ['page_header', 'page_footer', 'footnote', 'note'] as const;
export const BLOCK_TYPES = [...FLOW_BLOCK_TYPES, ...FURNITURE_BLOCK_TYPES] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

interface BlockBase<T extends BlockType> {
  type: T;
  /**
   * Stable reference within the package (`b0`, `b1`… in reading order for the body, `f0`… for
   * furniture), assigned when the package is assembled (`numberBlocks`); parsers leave it out.
   */
  id?: string;
  /** 0-based page (PDF page, slide); absent for formats without pages (DOCX, sheets, text). */
  page?: number;
  /** Where the block sits on its page, when the format has pages. */
  bbox?: BBox;
  origin: Origin;
}

export interface HeadingBlock extends BlockBase<'heading'> {
  /** 1 = top level, down to 6. */
  level: number;
  text: string;
}

export interface ParagraphBlock extends BlockBase<'paragraph'> {
  text: string;
}

export interface ListBlock extends BlockBase<'list'> {
  ordered: boolean;
  /** Number of the first item of an ordered list, when it is not 1. */
  start?: number;
  items: ListItemBlock[];
}

export interface ListItemBlock extends BlockBase<'list_item'> {
  text: string;
  /** The bullet or number as found in the document (`•`, `3.`, `a)`), when there was one. */
  marker?: string;
  /** Lists nested under this item. */
  children?: ListBlock[];
}

export interface TableCell {
  /** 0-based row and column of the cell's top-left grid position. */
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
  /** A header cell (a header row, or a cell the format marks as a header). */
  header?: boolean;
}

export interface TableBlock extends BlockBase<'table'> {
  /** Grid size. Every grid position is covered by exactly one cell (empty cells have text ''). */
  rows: number;
  columns: number;
  /** Leading rows that are headers (0 when the format does not say). */
  headerRows: number;
  /** Only the cells that start at their position: a merged cell appears once, with its spans. */
  cells: TableCell[];
  /** Sheet name for spreadsheets. */
  name?: string;
  /** A sheet hidden in the workbook. */
  hidden?: boolean;
  caption?: string;
}

export interface FigureBlock extends BlockBase<'figure'> {
  /** sha256 of the image in `assets`, when the picture could be stored. */
  asset?: string;
  /** Alternative text the document gives the picture. */
  alt?: string;
  caption?: string;
}

export interface CaptionBlock extends BlockBase<'caption'> {
  text: string;
}

export interface CodeBlock extends BlockBase<'code'> {
  text: string;
  language?: string;
}

export interface FormulaBlock extends BlockBase<'formula'> {
  /** The formula as found: LaTeX from MinerU, otherwise the characters of the text layer. */
  text: string;
  format: 'latex' | 'text';
}

export interface PageHeaderBlock extends BlockBase<'page_header'> {
  text: string;
}

export interface PageFooterBlock extends BlockBase<'page_footer'> {
  text: string;
}

export interface FootnoteBlock extends BlockBase<'footnote'> {
  /** The note's mark in the text (`1`, `*`, `iv`), when known. */
  label?: string;
  text: string;
}

/** Speaker notes of a slide. */
export interface NoteBlock extends BlockBase<'note'> {
  text: string;
}

export type FlowBlock = HeadingBlock | ParagraphBlock | ListBlock | TableBlock | FigureBlock | CaptionBlock | CodeBlock | FormulaBlock;
export type FurnitureBlock = PageHeaderBlock | PageFooterBlock | FootnoteBlock | NoteBlock;
export type Block = FlowBlock | ListItemBlock | FurnitureBlock;

/** A document's blocks as a parser or an engine produces them. */
export interface DocumentBlocks {
  body: FlowBlock[];
  furniture: FurnitureBlock[];
}

/** Every block in reading order, nested list items included (pre-order). */
export function* walkBlocks(blocks: readonly Block[]): Generator<Block> {
  for (const block of blocks) {
    yield block;
    if (block.type === 'list') yield* walkBlocks(block.items);
    else if (block.type === 'list_item' && block.children) yield* walkBlocks(block.children);
  }
}

/**
 * Gives every block its `id` in reading order (`b0`… for the body, `f0`… for furniture). Ids are
 * a pure function of the order, so assembling the same document twice gives the same ids.
 */
export function numberBlocks(doc: DocumentBlocks): void {
  numberFrom(doc.body, 'b', 0);
  numberFrom(doc.furniture, 'f', 0);
}

/** Ids `<prefix><n>` from `first` on, for blocks that go on a document numbered up to `first` (a part of it); returns the next n. */
export function numberFrom(blocks: readonly Block[], prefix: 'b' | 'f', first: number): number {
  let n = first;
  for (const block of walkBlocks(blocks)) block.id = `${prefix}${n++}`;
  return n;
}

/**
 * The table as a rectangular grid of strings: a merged cell's text in its top-left position,
 * '' in the positions it covers (the version-1 `tables[].rows` shape).
 */
export function tableGrid(table: TableBlock): string[][] {
  const grid = Array.from({ length: table.rows }, () => Array.from({ length: table.columns }, () => ''));
  for (const cell of table.cells) {
    const row = grid[cell.row];
    if (row && cell.col < row.length) row[cell.col] = cell.text;
  }
  return grid;
}

/**
 * Builds a table block from a grid of strings with no merged cells (CSV, a text table).
 * `headerRows` leading rows are marked as headers.
 */
export function gridTable(grid: string[][], origin: Origin, headerRows = 0): TableBlock {
  const columns = Math.max(0, ...grid.map((r) => r.length));
  const cells: TableCell[] = [];
  grid.forEach((r, row) => {
    for (let col = 0; col < columns; col += 1) {
      const cell: TableCell = { row, col, rowSpan: 1, colSpan: 1, text: r[col] ?? '' };
      if (row < headerRows) cell.header = true;
      cells.push(cell);
    }
  });
  return { type: 'table', rows: grid.length, columns, headerRows: Math.min(headerRows, grid.length), cells, origin };
}
