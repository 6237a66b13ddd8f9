import type { TableBlock } from '../api/types.js';
import { h } from '../ui/dom.js';

/**
 * A table block as an HTML table: header rows in `<thead>`, header cells as `<th scope>`, merged
 * cells with their spans (the package lists a merged cell once, at its top-left position).
 */
export function tableView(table: TableBlock): HTMLElement {
  const byRow = new Map<number, TableBlock['cells']>();
  for (const cell of table.cells) byRow.set(cell.row, [...(byRow.get(cell.row) ?? []), cell]);
  const rowElement = (row: number) =>
    h(
      'tr',
      {},
      (byRow.get(row) ?? [])
        .sort((a, b) => a.col - b.col)
        .map((cell) => {
          const isHeader = cell.header === true || row < table.headerRows;
          const attributes = { rowspan: cell.rowSpan > 1 ? cell.rowSpan : null, colspan: cell.colSpan > 1 ? cell.colSpan : null };
          return isHeader ? h('th', { ...attributes, scope: row < table.headerRows ? 'col' : 'row' }, cell.text) : h('td', attributes, cell.text);
        }),
    );
  const rows = Array.from({ length: table.rows }, (_, row) => row);
  const head = rows.filter((row) => row < table.headerRows);
  const body = rows.filter((row) => row >= table.headerRows);
  const caption = table.caption ?? table.name;
  return h(
    'div',
    { class: 'table-scroll', role: 'region', tabindex: 0, 'aria-label': caption ? `Table: ${caption}` : 'Table' },
    h('table', {}, caption ? h('caption', {}, caption) : null, head.length > 0 ? h('thead', {}, head.map(rowElement)) : null, h('tbody', {}, body.map(rowElement))),
  );
}
