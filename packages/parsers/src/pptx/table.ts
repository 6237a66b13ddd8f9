import type { Origin, TableBlock, TableCell } from '@readpack/reading-package';
import { assertTableSize } from '../limits.js';
import { child, childrenNamed, completeTable, intAttr, type XmlElement } from '../ooxml.js';
import type { ParseOptions } from '../types.js';
import { frameText } from './text.js';

/** PowerPoint caps tables far lower; a larger span is malformed. */
const MAX_SPAN = 1000;

/**
 * An `a:tbl`: PowerPoint writes every grid position, the ones a merge covers as `hMerge`/`vMerge`
 * placeholders, so the n-th `a:tc` of a row is grid column n and the merged cell carries
 * `gridSpan`/`rowSpan`. Header rows: the first row when the table is styled with one (`firstRow`).
 */
export function readSlideTable(tbl: XmlElement, origin: Origin, limits: Required<ParseOptions>): TableBlock {
  const gridColumns = childrenNamed(child(tbl, 'a:tblGrid'), 'a:gridCol').length;
  const rows = childrenNamed(tbl, 'a:tr');
  const cells: TableCell[] = [];
  let columns = gridColumns;
  const headerRows = rows.length > 0 && isTrue(child(tbl, 'a:tblPr')?.attrs.firstRow) ? 1 : 0;
  rows.forEach((tr, row) => {
    const tcs = childrenNamed(tr, 'a:tc');
    tcs.forEach((tc, col) => {
      if (isTrue(tc.attrs.hMerge) || isTrue(tc.attrs.vMerge)) return;
      const cell: TableCell = {
        row,
        col,
        rowSpan: span(tc.attrs.rowSpan),
        colSpan: span(tc.attrs.gridSpan),
        text: frameText(child(tc, 'a:txBody')),
      };
      if (row < headerRows) cell.header = true;
      cells.push(cell);
    });
    columns = Math.max(columns, tcs.length);
  });
  assertTableSize('a slide table', rows.length, columns, limits);
  return completeTable(cells, rows.length, columns, headerRows, origin);
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

function span(value: string | undefined): number {
  return Math.min(Math.max(intAttr(value) ?? 1, 1), MAX_SPAN);
}
