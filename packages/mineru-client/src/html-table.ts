/**
 * Rows of cell text from the HTML MinerU writes for a table (`<table><tr><td rowspan colspan>`).
 * Tolerant rather than complete: unclosed cells and rows are closed by the next one, unknown
 * tags are dropped. A spanned cell keeps its text in its first (top-left) position and leaves
 * the positions it covers empty, as the reading package does for merged cells.
 */
export function parseHtmlTable(html: string): string[][] {
  return layOut(parseRows(html));
}

/**
 * The table's cells with their spans, placed on the grid (what a `table` block holds): rows and
 * columns counted as laid out, `th` cells marked as headers, spans clipped to the grid.
 */
export function parseHtmlTableCells(html: string): { rows: number; columns: number; cells: { row: number; col: number; rowSpan: number; colSpan: number; text: string; header?: boolean }[] } {
  const parsedRows = parseRows(html);
  const taken: boolean[][] = [];
  const cells: { row: number; col: number; rowSpan: number; colSpan: number; text: string; header?: boolean }[] = [];
  parsedRows.forEach((rowCells, r) => {
    const line = (taken[r] ??= []);
    let c = 0;
    for (const cell of rowCells) {
      while (line[c]) c += 1;
      const rowSpan = Math.min(cell.rowspan, parsedRows.length - r);
      for (let dr = 0; dr < rowSpan; dr++) {
        const target = (taken[r + dr] ??= []);
        for (let dc = 0; dc < cell.colspan; dc++) target[c + dc] = true;
      }
      cells.push({ row: r, col: c, rowSpan, colSpan: cell.colspan, text: collapse(cell.text), ...(cell.header ? { header: true } : {}) });
      c += cell.colspan;
    }
  });
  const columns = Math.max(0, ...taken.map((line) => line.length));
  // Positions no cell covers (a short row) become empty cells, so every position has one.
  for (let r = 0; r < parsedRows.length; r++) {
    for (let c = 0; c < columns; c++) if (!taken[r]?.[c]) cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, text: '' });
  }
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  return { rows: parsedRows.length, columns, cells };
}

function parseRows(html: string): ParsedCell[][] {
  const parsedRows: ParsedCell[][] = [];
  let row: ParsedCell[] | undefined;
  let cell: ParsedCell | undefined;

  const closeCell = () => {
    if (cell && row) row.push(cell);
    cell = undefined;
  };
  const closeRow = () => {
    closeCell();
    if (row) parsedRows.push(row);
    row = undefined;
  };

  for (const token of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|([^<]+)/g)) {
    const [, closing, rawName, attributes, text] = token;
    if (text !== undefined) {
      if (cell) cell.text += decodeEntities(text);
      continue;
    }
    const name = (rawName ?? '').toLowerCase();
    if (name === 'tr') {
      if (closing) closeRow();
      else {
        closeRow();
        row = [];
      }
    } else if (name === 'td' || name === 'th') {
      closeCell();
      if (!closing) {
        row ??= [];
        cell = { text: '', rowspan: spanOf(attributes, 'rowspan'), colspan: spanOf(attributes, 'colspan'), header: name === 'th' };
      }
    } else if (name === 'br' || name === 'p' || name === 'div') {
      if (cell) cell.text += ' ';
    } else if (name === 'table' && closing) {
      closeRow();
    }
  }
  closeRow();
  return parsedRows;
}

interface ParsedCell {
  text: string;
  header: boolean;
  rowspan: number;
  colspan: number;
}

/** Places cells on a grid, skipping positions taken by row spans from rows above. */
function layOut(parsedRows: ParsedCell[][]): string[][] {
  const grid: (string | undefined)[][] = [];
  parsedRows.forEach((cells, r) => {
    const line = (grid[r] ??= []);
    let c = 0;
    for (const cell of cells) {
      while (line[c] !== undefined) c += 1;
      for (let dr = 0; dr < cell.rowspan; dr++) {
        const target = (grid[r + dr] ??= []);
        for (let dc = 0; dc < cell.colspan; dc++) target[c + dc] = dr === 0 && dc === 0 ? collapse(cell.text) : '';
      }
      c += cell.colspan;
    }
  });
  // Row spans reaching past the last row would add rows nobody wrote: keep only parsed rows.
  const rows = grid.slice(0, parsedRows.length);
  const width = Math.max(0, ...rows.map((line) => line.length));
  return rows.map((line) => Array.from({ length: width }, (_, i) => line[i] ?? ''));
}

function spanOf(attributes: string | undefined, name: string): number {
  const match = new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, 'i').exec(attributes ?? '');
  const value = match ? Number(match[1]) : 1;
  // Guards against a corrupt span blowing the grid up.
  return Number.isInteger(value) && value >= 1 ? Math.min(value, 1000) : 1;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? whole;
  });
}
