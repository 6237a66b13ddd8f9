import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { decodeText, parseCsv, parseDocument, SUPPORTED_MEDIA_TYPES } from '../src/index.js';
import { rejectionCode, scratchDir } from './helpers.js';

describe('parseCsv', () => {
  it.each([
    ['plain fields', 'a,b,c\n1,2,3', [['a', 'b', 'c'], ['1', '2', '3']]],
    ['quoted comma', '"a,b",c', [['a,b', 'c']]],
    ['quoted LF and CRLF', '"line 1\nline 2",x\r\n"3\r\n4",y', [['line 1\nline 2', 'x'], ['3\r\n4', 'y']]],
    ['doubled quotes', '"say ""hi""",""""', [['say "hi"', '"']]],
    ['empty quoted field', '"",x,""', [['', 'x', '']]],
    ['empty fields', 'a,,c\n,,', [['a', '', 'c'], ['', '', '']]],
    ['CRLF with a final line break', 'a,b\r\n1,2\r\n', [['a', 'b'], ['1', '2']]],
    ['CR line breaks', 'a,b\r1,2', [['a', 'b'], ['1', '2']]],
    ['blank lines are skipped', 'a\n\n\nb\n', [['a'], ['b']]],
    ['quote inside an unquoted field is literal', 'ab"c,d', [['ab"c', 'd']]],
    ['text after a closing quote is kept', '"ab"c,d', [['abc', 'd']]],
    ['unterminated quote runs to the end', 'x,"abc\ndef', [['x', 'abc\ndef']]],
    ['spaces are kept', ' a , b ', [[' a ', ' b ']]],
    ['empty input', '', []],
  ])('%s', (_label, input, expected) => {
    expect(parseCsv(input)).toEqual(expected);
  });

  it('takes another delimiter', () => {
    expect(parseCsv('a;"b;c"\n1;2', ';')).toEqual([['a', 'b;c'], ['1', '2']]);
  });
});

describe('decodeText', () => {
  it('strips a UTF-8 BOM', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toBe('hi');
  });
  it('falls back to latin1 for invalid UTF-8', () => {
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff]))).toBe('café ÿ');
  });
  it('reads UTF-16 with a BOM', () => {
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0xe9, 0x00]))).toBe('hé');
    expect(decodeText(new Uint8Array([0xfe, 0xff, 0x00, 0x68, 0x00, 0xe9]))).toBe('hé');
  });
  it('keeps valid multi-byte UTF-8', () => {
    expect(decodeText(new TextEncoder().encode('Grüße, 日本'))).toBe('Grüße, 日本');
  });
});

describe('text documents', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('reads text/plain with the version of @readpack/parsers, text/markdown with marked', async () => {
    const own = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const path = await scratch.file('note.md', '\ufeff# Title\r\n\r\nBody text\r\n');
    const plain = await parseDocument({ path, mediaType: 'text/plain' });
    expect(plain.origin).toEqual({ parser: 'readpack-text', version: own.version, engine: 'native' });
    expect(plain.body.map((b) => b.type)).toEqual(['paragraph', 'paragraph']);
    for (const mediaType of ['text/markdown', 'text/markdown; charset=UTF-8']) {
      const doc = await parseDocument({ path, mediaType });
      expect(doc.origin.parser).toBe('marked');
      expect(doc.body).toEqual([
        { type: 'heading', level: 1, text: 'Title', origin: doc.origin },
        { type: 'paragraph', text: 'Body text', origin: doc.origin },
      ]);
      expect(doc.tables).toEqual([]);
    }
  });

  it('reads text/csv into one padded table', async () => {
    const path = await scratch.file('data.csv', 'name,comment\r\n"Doe, Jane","said ""hello""\r\nand left"\r\nsolo\r\n');
    const doc = await parseDocument({ path, mediaType: 'text/csv' });
    expect(doc.tables).toHaveLength(1);
    expect(doc.tables[0]).toMatchObject({
      name: 'Table 1',
      rows: [
        ['name', 'comment'],
        ['Doe, Jane', 'said "hello"\r\nand left'],
        ['solo', ''],
      ],
    });
  });

  it('detects semicolon-separated CSV', async () => {
    const path = await scratch.file('semi.csv', 'a;b\n"1,5";2\n');
    const doc = await parseDocument({ path, mediaType: 'text/csv' });
    expect(doc.tables[0]?.rows).toEqual([
      ['a', 'b'],
      ['1,5', '2'],
    ]);
  });

  it('refuses a CSV beyond the limits', async () => {
    const path = await scratch.file('wide.csv', 'a,b,c,d\n1,2,3,4\n');
    expect(await rejectionCode(parseDocument({ path, mediaType: 'text/csv' }, { maxSheetColumns: 3 }))).toBe('unsupported_content');
    expect(await rejectionCode(parseDocument({ path, mediaType: 'text/csv' }, { maxSheetRows: 1 }))).toBe('unsupported_content');
  });
});

describe('dispatch', () => {
  it('lists the supported media types', () => {
    expect([...SUPPORTED_MEDIA_TYPES].sort()).toEqual(
      [
        'application/pdf',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
        'text/csv',
        'text/markdown',
        'text/plain',
        'text/tab-separated-values',
        'text/html',
        'application/vnd.ms-excel',
        'application/vnd.oasis.opendocument.spreadsheet',
        'application/msword',
        'application/epub+zip',
      ].sort(),
    );
  });

  it('throws unsupported_content for any other media type', async () => {
    expect(await rejectionCode(parseDocument({ path: '/nonexistent', mediaType: 'image/png' }))).toBe('unsupported_content');
    expect(await rejectionCode(parseDocument({ path: '/nonexistent', mediaType: '' }))).toBe('unsupported_content');
  });

  it('lets I/O errors through as they are (the worker retries them)', async () => {
    await expect(parseDocument({ path: '/nonexistent/file.txt', mediaType: 'text/plain' })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
