import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { FilledTable, PageGraphics, PositionedText, RuledTable } from './graphics-types.js';
import type { Origin } from '@readpack/reading-package';

/**
 * Reads a page's embedded images and ruled tables from its operator list.
 * (Being written in this session: answers no graphics until the reader lands.)
 */
export async function readPageGraphics(_page: PDFPageProxy, _pageIndex: number, _options: { maxImageBytes: number }): Promise<PageGraphics> {
  return { figures: [], tables: [] };
}

/** Puts each text inside the cell that contains its centre. */
export function fillRuledTable(_table: RuledTable, _texts: PositionedText[], _origin: Origin, _page: number): FilledTable {
  throw new Error('fillRuledTable is not written yet');
}
