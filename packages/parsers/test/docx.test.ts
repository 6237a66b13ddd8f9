import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fixturePath } from '@readpack/testing';
import { parseDocument } from '../src/index.js';
import { DOCX, rejectionCode, scratchDir, XLSX_TYPE } from './helpers.js';

const docx = (name: string) => parseDocument({ path: fixturePath(name), mediaType: DOCX });
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('DOCX', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('puts footnotes after the body, without reference markers', async () => {
    const doc = await docx('footnotes.docx');
    expect(doc.text).toBe('Ouch.\n\nA tachyon walks into a bar.\nFin.');
    expect(doc.text).not.toContain('↑');
  });

  it('yields the 7 tables of word_tables.docx, spans expanded with the text in the first cell', async () => {
    const doc = await docx('word_tables.docx');
    expect(doc.tables.map((t) => t.name)).toEqual(['Table 1', 'Table 2', 'Table 3', 'Table 4', 'Table 5', 'Table 6', 'Table 7']);
    for (const table of doc.tables) {
      const width = table.rows[0]?.length ?? 0;
      for (const row of table.rows) expect(row).toHaveLength(width);
      expect(table.origin.parser).toBe('@readpack/parsers');
    }
    expect(doc.tables[0]?.rows).toEqual([
      ['Header 0.0', 'Header 0.1', 'Header 0.2'],
      ['Cell 1.0', 'Cell 1.1', 'Cell 1.2'],
      ['Cell 2.0', 'Cell 2.1', 'Cell 2.2'],
    ]);
    // colspan=2
    expect(doc.tables[1]?.rows[1]).toEqual(['Cell 1.0', 'Merged Cell 1.1 1.2', '']);
    // rowspan=2
    expect(doc.tables[3]?.rows.slice(1, 3)).toEqual([
      ['Cell 1.0', 'Merged Cell 1.1 2.1', 'Cell 1.2'],
      ['Cell 2.0', '', 'Cell 2.2'],
    ]);
    // rowspans on both sides push a cell to the last column
    expect(doc.tables[4]?.rows[4]).toEqual(['Cell 4.0', '', 'Cell 4.2', '', 'Merged Cell 4.4 5.4']);
    expect(doc.text).toContain('A uniform table\n\nHeader 0.0\tHeader 0.1\tHeader 0.2\nCell 1.0\tCell 1.1\tCell 1.2\n');
  });

  it('extracts the embedded PNG of word_sample.docx, and its table', async () => {
    const doc = await docx('word_sample.docx');
    expect(doc.images.length).toBeGreaterThanOrEqual(1);
    const image = doc.images[0];
    expect(image?.mediaType).toBe('image/png');
    expect(image?.name).toBe('image-1.png');
    expect(Array.from(image?.data.subarray(0, 8) ?? [])).toEqual(PNG_SIGNATURE);
    expect(image?.data.length).toBeGreaterThan(1000);
    expect(doc.tables).toHaveLength(1);
    expect(doc.tables[0]?.rows[2]).toEqual(['Berries', 'Blueberry, Strawberry, Cranberry', '150']);
    expect(doc.text).toContain('- Paddle about\n');
    expect(doc.text).toContain('2. Don’t forget to drink water\n');
  });

  it('reports corrupt_document for random bytes, an empty file and a ZIP that is no DOCX', async () => {
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
    for (const [name, data] of [
      ['random.docx', random],
      ['empty.docx', new Uint8Array(0)],
    ] as const) {
      const path = await scratch.file(name, data);
      expect(await rejectionCode(parseDocument({ path, mediaType: DOCX }))).toBe('corrupt_document');
    }
    expect(await rejectionCode(parseDocument({ path: fixturePath('Book1.xlsx'), mediaType: DOCX }))).toBe('corrupt_document');
  });

  it('reports encrypted_document for a password-protected Office file (OLE2 wrapper with EncryptionInfo)', async () => {
    const header = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
    const data = new Uint8Array([...header, ...new Uint8Array(504), ...Buffer.from('EncryptionInfo', 'utf16le'), ...new Uint8Array(64)]);
    const path = await scratch.file('protected.docx', data);
    expect(await rejectionCode(parseDocument({ path, mediaType: DOCX }))).toBe('encrypted_document');
    expect(await rejectionCode(parseDocument({ path, mediaType: XLSX_TYPE }))).toBe('encrypted_document');
  });
});
