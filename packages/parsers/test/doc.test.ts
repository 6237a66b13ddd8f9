import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
import { parseDocument } from '../src/index.js';
import { rejectionCode, scratchDir } from './helpers.js';
import { flatOdt, removeTestProfile, sofficeConvert } from './libreoffice.js';

const DOC = 'application/msword';

describe('legacy Word (.doc) with word-extractor', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let docPath: string;
  beforeAll(async () => {
    scratch = await scratchDir();
    // A real Word 97 file, written by LibreOffice from a flat ODT the test wrote.
    docPath = await scratch.file('report.doc', await sofficeConvert('report.fodt', flatOdt(), 'doc'));
  }, 120_000);
  afterAll(async () => {
    await scratch.cleanup();
    await removeTestProfile();
  });

  it('reads body paragraphs (headings are not recoverable: paragraphs), text boxes, footnotes, header and footer', async () => {
    const doc = await parseDocument({ path: docPath, mediaType: DOC });
    expect(doc.origin.parser).toBe('word-extractor');
    const texts = doc.body.map((b) => (b as { text: string }).text);
    expect(doc.body.every((b) => b.type === 'paragraph')).toBe(true);
    expect(texts).toEqual(expect.arrayContaining(['Annual report', 'Results by region', 'Closing words of the report.']));
    expect(texts.some((t) => t.startsWith('The first paragraph of the annual report.'))).toBe(true);
    // Table rows come through as tab-separated lines.
    expect(texts).toContain('North\t1200');
    // Text boxes come after the body.
    expect(texts.at(-1)).toBe('Text in a text box');
    expect(doc.furniture).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'page_header', text: 'Running header text' }),
        expect.objectContaining({ type: 'page_footer', text: 'Running footer text' }),
        expect.objectContaining({ type: 'footnote', text: 'A footnote about the figures.' }),
      ]),
    );
  });

  it('an encrypted DOC (FIB fEncrypted) fails encrypted_document instead of yielding ciphertext', async () => {
    const cfb = XLSX.CFB.read(await readFile(docPath), { type: 'buffer' });
    const stream = XLSX.CFB.find(cfb, 'WordDocument')!;
    const content = Uint8Array.from(stream.content);
    content[0x0b] = content[0x0b]! | 0x01; // fEncrypted is bit 8 of the flags at 0x0A
    stream.content = content;
    const path = await scratch.file('locked.doc', XLSX.CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
    expect(await rejectionCode(parseDocument({ path, mediaType: DOC }))).toBe('encrypted_document');
  });

  it('refuses a file that is not an OLE2 compound file as corrupt_document', async () => {
    const path = await scratch.file('fake.doc', 'just text');
    expect(await rejectionCode(parseDocument({ path, mediaType: DOC }))).toBe('corrupt_document');
  });
});
