import type { BBox, TableBlock } from '@readpack/reading-package';
import type { EmbeddedImage } from '../types.js';

/**
 * The contract between the PDF text layout (pdf/layout*.ts) and the PDF graphics reader
 * (pdf/graphics.ts): what the graphics of one page contribute to its blocks. Boxes are in PDF
 * points, origin top-left, y down (the block model's convention).
 */

/** A run of text with its box, as the layout has it (the graphics reader assigns them to cells). */
export interface PositionedText {
  text: string;
  bbox: BBox;
}

/** An embedded raster image drawn on the page, stored as a figure's asset. */
export interface PageFigure {
  bbox: BBox;
  image: EmbeddedImage;
}

/** A ruled (lattice) table: its grid from the page's lines and rectangles, without text yet. */
export interface RuledTable {
  bbox: BBox;
  rows: number;
  columns: number;
  cells: { row: number; col: number; rowSpan: number; colSpan: number; bbox: BBox }[];
  /** Leading header rows, when a doubled or thicker rule sets them off (absent: not known). */
  headerRows?: number;
}

export interface PageGraphics {
  figures: PageFigure[];
  tables: RuledTable[];
}

/** A ruled table filled with the text inside its cells, and which texts it used (by index). */
export interface FilledTable {
  block: TableBlock;
  used: Set<number>;
}
