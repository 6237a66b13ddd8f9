import type { Origin, TableBlock, TableCell } from '@readpack/reading-package';

/**
 * The table block for cells already placed on a grid: positions no cell covers get an empty
 * 1×1 cell (a header cell in a header row), spans are clipped to the grid, and the cells are
 * sorted in reading order.
 */
export function completeTable(placed: TableCell[], rows: number, columns: number, headerRows: number, origin: Origin): TableBlock {
  const covered = Array.from({ length: rows }, () => new Uint8Array(columns));
  const cells: TableCell[] = [];
  for (const cell of placed) {
    if (cell.row >= rows || cell.col >= columns) continue;
    cell.rowSpan = Math.max(1, Math.min(cell.rowSpan, rows - cell.row));
    cell.colSpan = Math.max(1, Math.min(cell.colSpan, columns - cell.col));
    let clash = false;
    for (let r = cell.row; r < cell.row + cell.rowSpan && !clash; r += 1) for (let c = cell.col; c < cell.col + cell.colSpan; c += 1) if (covered[r]?.[c]) clash = true;
    // A malformed merge that overlaps another cell: the cell keeps its own position only.
    if (clash) {
      if (covered[cell.row]?.[cell.col]) continue;
      cell.rowSpan = 1;
      cell.colSpan = 1;
    }
    for (let r = cell.row; r < cell.row + cell.rowSpan; r += 1) covered[r]?.fill(1, cell.col, cell.col + cell.colSpan);
    cells.push(cell);
  }
  covered.forEach((line, row) => {
    line.forEach((taken, col) => {
      if (taken) return;
      const filler: TableCell = { row, col, rowSpan: 1, colSpan: 1, text: '' };
      if (row < headerRows) filler.header = true;
      cells.push(filler);
    });
  });
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  return { type: 'table', rows, columns, headerRows: Math.min(headerRows, rows), cells, origin };
}
