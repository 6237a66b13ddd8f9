import type { FigureBlock, TableCell } from '@readpack/reading-package';
import { assertTableSize } from '../limits.js';
import { child, childrenNamed, completeTable, elements, intAttr, isOn, val, type XmlElement } from '../ooxml.js';
import { itemsText, readBlocks, type Item, type PartContext } from './content.js';

/** Word allows 63 columns; anything far beyond is a malformed span. */
const MAX_SPAN = 1000;
/** Rows and cells may be wrapped in content controls or tracked insertions. */
const WRAPPERS = new Set(['w:sdt', 'w:sdtContent', 'w:customXml', 'w:ins']);

function wrapped(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  for (const c of elements(el)) {
    if (c.name === name) out.push(c);
    else if (WRAPPERS.has(c.name)) out.push(...wrapped(c, name));
  }
  return out;
}

/**
 * A `w:tbl` laid out on its grid. mammoth's table model is not used for this: it ignores
 * `w:gridBefore`/`w:gridAfter`, so a vertical merge in a row that starts late lands on the wrong
 * column (word_tables.docx, last table). Here every cell is placed at its grid column: `gridBefore`
 * skips columns, `gridSpan` is the column span, and a `vMerge` continuation extends the cell above
 * that starts at the same column. Header rows are the leading rows marked `w:tblHeader`.
 */
export function readTable(tbl: XmlElement, ctx: PartContext, depth: number): Item {
  const gridColumns = childrenNamed(child(tbl, 'w:tblGrid'), 'w:gridCol').length;
  const rows = wrapped(tbl, 'w:tr').filter((tr) => !child(child(tr, 'w:trPr'), 'w:del'));
  const placed: TableCell[] = [];
  const figures: FigureBlock[] = [];
  /** The cell starting at each column that a `vMerge` continuation in the next row may extend. */
  const above = new Map<number, TableCell>();
  let headerRows = 0;
  let columns = gridColumns;
  rows.forEach((tr, r) => {
    const trPr = child(tr, 'w:trPr');
    const header = headerRows === r && isOn(child(trPr, 'w:tblHeader'));
    if (header) headerRows += 1;
    let col = Math.max(0, intAttr(val(trPr, 'w:gridBefore')) ?? 0);
    let previous: TableCell | undefined;
    for (const tc of wrapped(tr, 'w:tc')) {
      const tcPr = child(tc, 'w:tcPr');
      const span = Math.min(Math.max(intAttr(val(tcPr, 'w:gridSpan')) ?? 1, 1), MAX_SPAN);
      const items = readBlocks(tc, ctx, depth + 1);
      figures.push(...items.flatMap((item) => item.figures));
      const text = itemsText(items);
      const vMerge = child(tcPr, 'w:vMerge');
      const start = above.get(col);
      if (vMerge && vMerge.attrs['w:val'] !== 'restart' && start && start.row + start.rowSpan === r) {
        start.rowSpan += 1;
        if (text.trim() !== '') start.text = start.text ? `${start.text}\n${text}` : text;
        col += start.colSpan;
        previous = undefined;
        continue;
      }
      // Legacy horizontal merge (`w:hMerge`, before gridSpan existed): widens the cell on its left.
      const hMerge = child(tcPr, 'w:hMerge');
      if (hMerge && hMerge.attrs['w:val'] !== 'restart' && previous && previous.col + previous.colSpan === col) {
        previous.colSpan += span;
        col += span;
        continue;
      }
      const cell: TableCell = { row: r, col, rowSpan: 1, colSpan: span, text };
      if (header) cell.header = true;
      placed.push(cell);
      above.set(col, cell);
      previous = cell;
      col += span;
    }
    columns = Math.max(columns, col);
  });
  assertTableSize('a table', rows.length, columns, ctx.limits);
  return { kind: 'table', block: completeTable(placed, rows.length, columns, headerRows, ctx.origin), figures };
}
