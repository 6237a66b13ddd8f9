import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as XLSX from '@e965/xlsx';
import { fixturePath } from '@readpack/testing';
import { parseDocument } from '../src/index.js';
import { rejectionCode, scratchDir, XLSX_TYPE } from './helpers.js';

function workbook(sheets: Record<string, XLSX.WorkSheet>): Uint8Array {
  const book = XLSX.utils.book_new();
  for (const [name, sheet] of Object.entries(sheets)) XLSX.utils.book_append_sheet(book, sheet, name);
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Uint8Array;
}

describe('XLSX', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('yields a table per sheet region (Sheet3 holds two tables side by side) and a heading per sheet', async () => {
    const doc = await parseDocument({ path: fixturePath('table-multiple.xlsx'), mediaType: XLSX_TYPE });
    expect(doc.tables.map((t) => t.name)).toEqual(['Sheet1', 'Sheet2', 'Sheet3', 'Sheet3']);
    expect(doc.tables[3]?.rows[1]).toEqual(['1', '750']);
    expect(doc.tables[0]?.rows).toEqual([
      ['Item', 'Type', 'Quantity'],
      ['1', 'Apple', '50'],
      ['2', 'Banana', '200'],
      ['3', 'Orange', '60'],
      ['4', 'Pear', '100'],
    ]);
    expect(doc.text.startsWith('Sheet1\n\nItem\tType\tQuantity\n1\tApple\t50\n')).toBe(true);
    expect(doc.text).toContain('\n\nSheet2\n\nItem\tPrice\n1\t0.85\n');
    expect(doc.origin.version).toBe(XLSX.version);
  });

  it('pads ragged rows and formats cells as displayed', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([['name', 'when', 'share'], ['only one']]);
    sheet.B2 = { t: 'd', v: new Date(Date.UTC(2024, 1, 29)), z: 'yyyy-mm-dd' };
    sheet.C2 = { t: 'n', v: 0.256, z: '0.0%' };
    const path = await scratch.file('formatted.xlsx', workbook({ Data: sheet, Empty: XLSX.utils.aoa_to_sheet([]) }));
    const doc = await parseDocument({ path, mediaType: XLSX_TYPE });
    expect(doc.tables[0]?.rows).toEqual([
      ['name', 'when', 'share'],
      ['only one', '2024-02-29', '25.6%'],
    ]);
    expect(doc.tables[1]).toMatchObject({ name: 'Empty', rows: [] });
    expect(doc.text).toBe('Data\n\nname\twhen\tshare\nonly one\t2024-02-29\t25.6%\n\nEmpty');
  });

  it('refuses sheets beyond the row and column limits with unsupported_content', async () => {
    const rows = Array.from({ length: 12 }, (_, r) => Array.from({ length: 5 }, (_, c) => `${r}:${c}`));
    const path = await scratch.file('big.xlsx', workbook({ Big: XLSX.utils.aoa_to_sheet(rows) }));
    const input = { path, mediaType: XLSX_TYPE };
    expect(await rejectionCode(parseDocument(input, { maxSheetRows: 11 }))).toBe('unsupported_content');
    expect(await rejectionCode(parseDocument(input, { maxSheetColumns: 4 }))).toBe('unsupported_content');
    await expect(parseDocument(input, { maxSheetRows: 12, maxSheetColumns: 5 })).resolves.toBeDefined();

    // Data only past the row limit is not silently dropped.
    const far = XLSX.utils.aoa_to_sheet([['a']]);
    far.A500 = { t: 's', v: 'far away' };
    far['!ref'] = 'A1:A500';
    const farPath = await scratch.file('far.xlsx', workbook({ Far: far }));
    expect(await rejectionCode(parseDocument({ path: farPath, mediaType: XLSX_TYPE }, { maxSheetRows: 100 }))).toBe('unsupported_content');
  });

  it('reports corrupt_document for random bytes, an empty file and a ZIP that is no workbook', async () => {
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
    for (const [name, data] of [
      ['random.xlsx', random],
      ['empty.xlsx', new Uint8Array(0)],
      ['csv-like.xlsx', new TextEncoder().encode('a,b\n1,2\n')],
    ] as const) {
      const path = await scratch.file(name, data);
      expect(await rejectionCode(parseDocument({ path, mediaType: XLSX_TYPE }))).toBe('corrupt_document');
    }
    expect(await rejectionCode(parseDocument({ path: fixturePath('word_sample.docx'), mediaType: XLSX_TYPE }))).toBe('corrupt_document');
  });
});
