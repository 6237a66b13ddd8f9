import type { BBox } from '@readpack/reading-package';

/**
 * Plain data the PDF text layout works on, so that every step (lines, reading order,
 * paragraphs, headings, lists, furniture) is a pure function testable without a PDF. Boxes are
 * in the block model's convention: PDF points, origin top-left, y down.
 */

export type Direction = 'right' | 'down' | 'left' | 'up';

/** One pdfjs text item, measured. */
export interface TextRun {
  text: string;
  bbox: BBox;
  /** Font size in points (the glyph height the text matrix gives). */
  size: number;
  bold: boolean;
  italic: boolean;
  /** Which way its text reads on the displayed page: `down` for vertical CJK or text turned a quarter clockwise. */
  direction: Direction;
}

/**
 * Runs on one baseline with no wide gap between them: a line of one column. A printed line that
 * spans a gutter is two fragments, so the reading order can put columns apart.
 */
export interface LineFragment {
  text: string;
  bbox: BBox;
  /** The size most of its characters have. */
  size: number;
  /** Most of its characters are bold (italic). */
  bold: boolean;
  italic: boolean;
}

/** Something with a box: what the reading order sorts. */
export interface Boxed {
  bbox: BBox;
}
