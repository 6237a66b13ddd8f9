import type { BBox, Origin, TableBlock, TableCell } from '@readpack/reading-package';
import type { FilledTable, PositionedText, RuledTable } from '../graphics-types.js';

/** Pieces this far apart (share of their height) on one line are separate words. */
const WORD_GAP_RATIO = 0.15;
/** Pieces whose vertical extents overlap this much (share of the shorter) share a line. */
const SAME_LINE_OVERLAP = 0.5;

/**
 * Puts each text inside the cell that contains its centre; a cell's pieces are read top to
 * bottom, then left to right, lines joined with `\n`, pieces on a line with a space where there
 * is a gap between them.
 */
export function fillRuledTable(table: RuledTable, texts: readonly PositionedText[], origin: Origin, page: number): FilledTable {
  const byCell = table.cells.map(() => [] as PositionedText[]);
  const used = new Set<number>();
  texts.forEach((text, index) => {
    const cx = (text.bbox[0] + text.bbox[2]) / 2;
    const cy = (text.bbox[1] + text.bbox[3]) / 2;
    if (!inside(table.bbox, cx, cy)) return;
    const cellIndex = table.cells.findIndex((cell) => inside(cell.bbox, cx, cy));
    if (cellIndex < 0) return;
    byCell[cellIndex]?.push(text);
    used.add(index);
  });
  const headerRows = Math.min(table.headerRows ?? 0, table.rows);
  const cells: TableCell[] = table.cells.map((cell, i) => {
    const filled: TableCell = { row: cell.row, col: cell.col, rowSpan: cell.rowSpan, colSpan: cell.colSpan, text: readingOrderText(byCell[i] ?? []) };
    if (cell.row < headerRows) filled.header = true;
    return filled;
  });
  const block: TableBlock = { type: 'table', page, bbox: [...table.bbox], origin, rows: table.rows, columns: table.columns, headerRows, cells };
  return { block, used };
}

function inside(box: BBox, x: number, y: number): boolean {
  return x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3];
}

export function readingOrderText(pieces: readonly PositionedText[]): string {
  const lines: PositionedText[][] = [];
  const sorted = [...pieces].filter((p) => p.text.trim() !== '').sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  for (const piece of sorted) {
    const line = lines.find((candidate) => sharesLine(candidate, piece));
    if (line) line.push(piece);
    else lines.push([piece]);
  }
  return lines.map(lineText).join('\n');
}

function sharesLine(line: readonly PositionedText[], piece: PositionedText): boolean {
  const top = Math.min(...line.map((p) => p.bbox[1]));
  const bottom = Math.max(...line.map((p) => p.bbox[3]));
  const overlap = Math.min(bottom, piece.bbox[3]) - Math.max(top, piece.bbox[1]);
  const shorter = Math.min(bottom - top, piece.bbox[3] - piece.bbox[1]);
  return shorter > 0 && overlap >= SAME_LINE_OVERLAP * shorter;
}

function lineText(line: PositionedText[]): string {
  const ordered = [...line].sort((a, b) => a.bbox[0] - b.bbox[0]);
  let text = '';
  let previous: PositionedText | undefined;
  for (const piece of ordered) {
    if (previous) {
      const gap = piece.bbox[0] - previous.bbox[2];
      const height = Math.min(piece.bbox[3] - piece.bbox[1], previous.bbox[3] - previous.bbox[1]);
      if (gap > WORD_GAP_RATIO * height && !/\s$/u.test(text)) text += ' ';
    }
    text += piece.text.trim();
    previous = piece;
  }
  return text;
}
