import { readFile } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
import { gridTable, type FlowBlock } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { assertTableSize, padRows } from './limits.js';
import { assertOfficeOpenXml, errorMessage } from './ooxml.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { libraryOrigin } from './versions.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';

/** The cells actually present (the `<dimension>` a file declares may be far larger, or wrong). */
function usedRange(sheet: XLSX.WorkSheet): XLSX.Range | undefined {
  let range: XLSX.Range | undefined;
  for (const key of Object.keys(sheet)) {
    if (key.startsWith('!')) continue;
    const { r, c } = XLSX.utils.decode_cell(key);
    if (r < 0 || c < 0) continue;
    if (!range) range = { s: { r, c }, e: { r, c } };
    else {
      range.s.r = Math.min(range.s.r, r);
      range.s.c = Math.min(range.s.c, c);
      range.e.r = Math.max(range.e.r, r);
      range.e.c = Math.max(range.e.c, c);
    }
  }
  return range;
}

/**
 * XLSX via SheetJS: one table per sheet with the cells as Excel displays them. Read from a
 * Buffer (`readFile` needs `set_fs` under ESM). `sheetRows` stops SheetJS from materialising
 * more than one row past the limit, so an oversized sheet fails fast.
 */
export async function parseXlsx(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOfficeOpenXml(buffer, 'XLSX');
  await assertSafeOfficeZip(buffer, 'XLSX', limits);
  const origin = libraryOrigin('@e965/xlsx', 'native');
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(buffer, {
      type: 'buffer',
      cellDates: true,
      cellFormula: false,
      cellHTML: false,
      sheetRows: limits.maxSheetRows + 1,
    });
  } catch (err) {
    if (/password|encrypt/i.test(errorMessage(err))) {
      throw new DocumentError('encrypted_document', 'the XLSX file is password-protected', { cause: err });
    }
    throw new DocumentError('corrupt_document', `not a readable XLSX file: ${errorMessage(err)}`, { cause: err });
  }
  if (workbook.SheetNames.length === 0) throw new DocumentError('empty_document', 'the workbook has no sheets');

  const body: FlowBlock[] = [];
  for (const name of workbook.SheetNames) {
    const sheet = workbook.Sheets[name];
    const range = sheet ? usedRange(sheet) : undefined;
    // SheetJS keeps the declared size in `!fullref` when `sheetRows` cut the sheet short: refuse
    // rather than silently drop the rows past the limit.
    const declared = sheet?.['!fullref'];
    if (declared) assertTableSize(`sheet "${name}"`, XLSX.utils.decode_range(declared).e.r + 1, 0, limits);
    let rows: string[][] = [];
    if (sheet && range) {
      // Row/column counts from A1: what a user sees as the sheet's size.
      assertTableSize(`sheet "${name}"`, range.e.r + 1, range.e.c + 1, limits);
      const raw = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: false, defval: '', blankrows: true, range });
      rows = padRows(raw.map((row) => Array.from(row, (cell) => (cell === null || cell === undefined ? '' : String(cell)))));
    }
    body.push({ type: 'heading', level: 2, text: name, origin }, { ...gridTable(rows, origin), name });
  }
  return parsedDocument({ origin, body });
}
