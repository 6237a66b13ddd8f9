import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from '@e965/xlsx';
import { sniffMediaType } from '../src/index.js';
import { flatOdp, flatOdt, removeTestProfile, sofficeConvert } from '../../parsers/test/libreoffice.js';

let dir: string;
const file = async (name: string, data: string | Uint8Array) => {
  const path = join(dir, name);
  await writeFile(path, data);
  return path;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-media-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await removeTestProfile();
});

describe('legacy and open formats, sniffed from their bytes', () => {
  it('tells XLS, DOC and PPT apart by the streams of their OLE2 directory (the name does not count)', async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['a']]), 'S');
    const xls = XLSX.write(book, { type: 'buffer', bookType: 'biff8' }) as Uint8Array;
    const doc = await sofficeConvert('r.fodt', flatOdt(), 'doc');
    const ppt = await sofficeConvert('d.fodp', flatOdp(), 'ppt');
    expect(await sniffMediaType(await file('x.bin', xls), 'x.doc')).toEqual({ supported: true, mediaType: 'application/vnd.ms-excel', kind: 'spreadsheet' });
    expect(await sniffMediaType(await file('d.bin', doc), 'd.xls')).toEqual({ supported: true, mediaType: 'application/msword', kind: 'doc' });
    expect(await sniffMediaType(await file('p.bin', ppt), 'p.doc')).toEqual({ supported: true, mediaType: 'application/vnd.ms-powerpoint', kind: 'convert' });
  }, 120_000);

  it('ODS and EPUB are parsed, ODT/RTF are converted', async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['a']]), 'S');
    const ods = XLSX.write(book, { type: 'buffer', bookType: 'ods' }) as Uint8Array;
    expect(await sniffMediaType(await file('s.ods', ods), 's.ods')).toMatchObject({ mediaType: 'application/vnd.oasis.opendocument.spreadsheet', kind: 'spreadsheet' });
    const odt = await sofficeConvert('r.fodt', flatOdt(), 'odt');
    expect(await sniffMediaType(await file('r.odt', odt), 'r.odt')).toMatchObject({ mediaType: 'application/vnd.oasis.opendocument.text', kind: 'convert' });
    const epub = await sofficeConvert('r.fodt', flatOdt(), 'epub');
    expect(await sniffMediaType(await file('r.epub', epub), 'r.zip')).toMatchObject({ mediaType: 'application/epub+zip', kind: 'epub' });
    expect(await sniffMediaType(await file('r.rtf', '{\\rtf1\\ansi Hello}'), 'r.txt')).toMatchObject({ mediaType: 'application/rtf', kind: 'convert' });
  }, 120_000);

  it('an OLE2 file that is none of them (an encrypted OOXML package) stays refused', async () => {
    // A minimal compound file with an `EncryptionInfo` stream only, written by SheetJS's CFB writer.
    const cfb = XLSX.CFB.utils.cfb_new();
    XLSX.CFB.utils.cfb_add(cfb, 'EncryptionInfo', new Uint8Array(16));
    const bytes = XLSX.CFB.write(cfb, { type: 'buffer' }) as Uint8Array;
    expect(await sniffMediaType(await file('enc.docx', bytes), 'enc.docx')).toEqual({ supported: false, detected: 'application/x-cfb' });
  });

  it('HTML by name or by its opening tag; TSV by name', async () => {
    expect(await sniffMediaType(await file('a.txt', '<!DOCTYPE html><p>x</p>'), 'a.txt')).toMatchObject({ mediaType: 'text/html', kind: 'text' });
    expect(await sniffMediaType(await file('b.htm', '<p>fragment</p>'), 'b.htm')).toMatchObject({ mediaType: 'text/html' });
    expect(await sniffMediaType(await file('c.txt', 'plain <b>words</b>'), 'c.txt')).toMatchObject({ mediaType: 'text/plain' });
    expect(await sniffMediaType(await file('d.tsv', 'a\tb\n1\t2\n'), 'd.tsv')).toMatchObject({ mediaType: 'text/tab-separated-values', kind: 'text' });
  });
});
