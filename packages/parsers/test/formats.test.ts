import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as XLSX from '@e965/xlsx';
import fc from 'fast-check';
import type { FlowBlock, TableBlock } from '@readpack/reading-package';
import { htmlDocument, markdownBlocks, parseDocument } from '../src/index.js';
import { rejectionCode, scratchDir } from './helpers.js';
import { BILLION_LAUGHS, buildZip } from '@readpack/testing';
import { flatOdt, removeTestProfile, sofficeConvert } from './libreoffice.js';

const TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  biff8: 'application/vnd.ms-excel',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
} as const;

/** Every grid position covered by exactly one cell: the block model's table invariant. */
function expectCovered(table: TableBlock): void {
  const seen = new Map<string, number>();
  for (const cell of table.cells) {
    for (let r = cell.row; r < cell.row + cell.rowSpan; r += 1) {
      for (let c = cell.col; c < cell.col + cell.colSpan; c += 1) seen.set(`${r},${c}`, (seen.get(`${r},${c}`) ?? 0) + 1);
    }
  }
  expect(seen.size).toBe(table.rows * table.columns);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
}

function tables(body: FlowBlock[]): TableBlock[] {
  return body.filter((b): b is TableBlock => b.type === 'table');
}

/** A workbook with a merged title over a numeric table, a second region, and a hidden sheet. */
function sampleWorkbook(): XLSX.WorkBook {
  const book = XLSX.utils.book_new();
  const sales = XLSX.utils.aoa_to_sheet([
    ['Quarterly sales', null, null],
    ['Region', 'Q1', 'Q2'],
    ['North', 10, 12],
    ['South', 7, 9],
    [],
    [],
    ['Notes', 'second region'],
  ]);
  sales['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 0, c: 2 } }];
  // A formula with its cached value: read as the value Excel shows.
  sales.D3 = { t: 'n', v: 22, f: 'B3+C3' };
  sales['!ref'] = 'A1:D7';
  XLSX.utils.book_append_sheet(book, sales, 'Sales');
  const side = XLSX.utils.aoa_to_sheet([
    ['a', null, null, 'x'],
    ['b', null, null, 'y'],
  ]);
  XLSX.utils.book_append_sheet(book, side, 'Side');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Secret', 'Value'], ['k', 1]]), 'Hidden');
  book.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 0 }, { Hidden: 1 }] };
  return book;
}

describe('spreadsheets (XLSX, XLS, ODS through one SheetJS path)', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
    await removeTestProfile();
  });

  for (const bookType of ['xlsx', 'biff8', 'ods'] as const) {
    it(`${bookType}: a heading per sheet, tables per region, merges as spans, hidden sheets marked`, async () => {
      const data = XLSX.write(sampleWorkbook(), { type: 'buffer', bookType }) as Uint8Array;
      const path = await scratch.file(`book.${bookType}`, data);
      const doc = await parseDocument({ path, mediaType: TYPES[bookType] });
      expect(doc.body.filter((b) => b.type === 'heading').map((b) => (b as { text: string; level: number }).text)).toEqual(['Sales', 'Side', 'Hidden']);
      expect(doc.body[0]).toMatchObject({ type: 'heading', level: 2, text: 'Sales' });
      const [main, notes, left, right, hidden] = tables(doc.body);
      expect(main).toMatchObject({ name: 'Sales', rows: 4, columns: 4 });
      expect(main!.cells[0]).toMatchObject({ row: 0, col: 0, rowSpan: 1, colSpan: 3, text: 'Quarterly sales' });
      expect(main!.cells.find((c) => c.row === 2 && c.col === 3)?.text).toBe('22');
      // First row is a merged title (text) over a body with text labels: the numbers are below row 2,
      // so row 0 is no header by the rule (its column D has no label).
      expectCovered(main!);
      expect(notes).toMatchObject({ name: 'Sales', rows: 1, columns: 2, headerRows: 0 });
      expect(notes!.cells.map((c) => c.text)).toEqual(['Notes', 'second region']);
      // Side: two regions separated by empty columns.
      expect(left).toMatchObject({ name: 'Side', rows: 2, columns: 1 });
      expect(right).toMatchObject({ name: 'Side', rows: 2, columns: 1 });
      expect(right!.cells.map((c) => c.text)).toEqual(['x', 'y']);
      // SheetJS's ODS writer does not write a sheet's visibility: the ODS case is tested on a file LibreOffice wrote.
      expect(hidden).toMatchObject({ name: 'Hidden', headerRows: 1, ...(bookType === 'ods' ? {} : { hidden: true }) });
      expect(hidden!.cells.filter((c) => c.header).map((c) => c.text)).toEqual(['Secret', 'Value']);
      expect(main!.hidden).toBeUndefined();
    });
  }

  it('ods written by LibreOffice: hidden sheets marked (read from the table style, which SheetJS skips)', async () => {
    const xlsx = XLSX.write(sampleWorkbook(), { type: 'buffer', bookType: 'xlsx' }) as Uint8Array;
    const path = await scratch.file('lo.ods', await sofficeConvert('book.xlsx', xlsx, 'ods'));
    const doc = await parseDocument({ path, mediaType: TYPES.ods });
    const all = tables(doc.body);
    expect(all.filter((t) => t.hidden).map((t) => t.name)).toEqual(['Hidden']);
    expect(all.find((t) => t.name === 'Sales')!.cells[0]).toMatchObject({ text: 'Quarterly sales', colSpan: 3 });
  }, 120_000);

  it('marks the first row as header when it is text over a numeric column', async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Item', 'Qty'], ['Apple', 3], ['Pear', 4]]), 'T');
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['a', 'b'], ['c', 'd']]), 'Words');
    const path = await scratch.file('header.xlsx', XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Uint8Array);
    const [numeric, words] = tables((await parseDocument({ path, mediaType: TYPES.xlsx })).body);
    expect(numeric!.headerRows).toBe(1);
    expect(words!.headerRows).toBe(0);
  });

  it('refuses an XLS that is not an OLE2 file, and an ODS that is not a ZIP', async () => {
    const path = await scratch.file('fake.xls', 'a,b\n1,2\n');
    expect(await rejectionCode(parseDocument({ path, mediaType: TYPES.xls }))).toBe('corrupt_document');
    expect(await rejectionCode(parseDocument({ path, mediaType: TYPES.ods }))).toBe('corrupt_document');
  });

  it('ODS passes the zip-bomb and DTD guard before SheetJS sees it', async () => {
    const ods = (content: string, extra: { name: string; data: string }[] = []) =>
      buildZip([{ name: 'mimetype', data: TYPES.ods, method: 0 }, { name: 'content.xml', data: content }, ...extra]);
    const laughs = await scratch.file('laughs.ods', ods(`<?xml version="1.0"?>${BILLION_LAUGHS}<office:document-content>&lol9;</office:document-content>`));
    expect(await rejectionCode(parseDocument({ path: laughs, mediaType: TYPES.ods }))).toBe('unsupported_content');
    const bomb = await scratch.file('bomb.ods', ods('<x/>', [{ name: 'Thumbnails/zeros.xml', data: '0'.repeat(8 * 1024 * 1024) }]));
    expect(await rejectionCode(parseDocument({ path: bomb, mediaType: TYPES.ods }))).toBe('archive_too_large');
  });

  it('applies the row limit to XLS and ODS too', async () => {
    const rows = Array.from({ length: 30 }, (_, r) => [`r${r}`, r]);
    for (const bookType of ['biff8', 'ods'] as const) {
      const book = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), 'Big');
      const path = await scratch.file(`big.${bookType}`, XLSX.write(book, { type: 'buffer', bookType }) as Uint8Array);
      expect(await rejectionCode(parseDocument({ path, mediaType: TYPES[bookType] }, { maxSheetRows: 10 }))).toBe('unsupported_content');
    }
  });
});

describe('text formats', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('CSV: one table, a header row when text sits over numbers', async () => {
    const path = await scratch.file('t.csv', 'city,population\nParis,2100000\nLyon,520000\n');
    const [table] = tables((await parseDocument({ path, mediaType: 'text/csv' })).body);
    expect(table).toMatchObject({ rows: 3, columns: 2, headerRows: 1 });
    expect(table!.cells.filter((c) => c.header).map((c) => c.text)).toEqual(['city', 'population']);
    const plain = await scratch.file('words.csv', 'a,b\nc,d\n');
    expect(tables((await parseDocument({ path: plain, mediaType: 'text/csv' })).body)[0]!.headerRows).toBe(0);
    const numbersFirst = await scratch.file('n.csv', '1,2\n3,4\n');
    expect(tables((await parseDocument({ path: numbersFirst, mediaType: 'text/csv' })).body)[0]!.headerRows).toBe(0);
  });

  it('TSV: tab-separated, even when cells hold commas', async () => {
    const path = await scratch.file('t.tsv', 'name\tamount\nDoe, Jane\t1,5\n');
    const [table] = tables((await parseDocument({ path, mediaType: 'text/tab-separated-values' })).body);
    expect(table!.cells.map((c) => c.text)).toEqual(['name', 'amount', 'Doe, Jane', '1,5']);
    expect(table!.headerRows).toBe(1);
  });

  it('Markdown: headings, paragraphs, nested lists, GFM tables, code fences, images as figures', async () => {
    const md = [
      '# Title &amp; more',
      '',
      'Some **bold** text with `code`.',
      '',
      '- one',
      '  - one.a',
      '  - one.b',
      '- two',
      '',
      '3. third',
      '4. fourth',
      '',
      '| Name | Qty |',
      '| --- | ---: |',
      '| Apple | 3 |',
      '',
      '```ts',
      'const x = 1;',
      '```',
      '',
      '![A chart](chart.png "Figure 1")',
      '',
      '## Second',
    ].join('\n');
    const path = await scratch.file('doc.md', md);
    const doc = await parseDocument({ path, mediaType: 'text/markdown' });
    expect(doc.origin.parser).toBe('marked');
    expect(doc.body.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'list', 'table', 'code', 'figure', 'heading']);
    expect(doc.body[0]).toMatchObject({ level: 1, text: 'Title & more' });
    expect(doc.body[1]).toMatchObject({ text: 'Some bold text with code.' });
    expect(doc.body[2]).toMatchObject({
      ordered: false,
      items: [{ text: 'one', children: [{ items: [{ text: 'one.a' }, { text: 'one.b' }] }] }, { text: 'two' }],
    });
    expect(doc.body[3]).toMatchObject({ ordered: true, start: 3, items: [{ text: 'third' }, { text: 'fourth' }] });
    expect(doc.body[4]).toMatchObject({ rows: 2, columns: 2, headerRows: 1 });
    expect(doc.body[5]).toMatchObject({ type: 'code', language: 'ts', text: 'const x = 1;' });
    expect(doc.body[6]).toEqual({ type: 'figure', alt: 'A chart', caption: 'Figure 1', origin: doc.origin });
    expect(doc.body[7]).toMatchObject({ level: 2, text: 'Second' });
  });

  it('HTML: headings, paragraphs, nested lists, tables with spans, pre as code; scripts ignored', async () => {
    const html = `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style><script>var a = "<p>not text</p>";</script></head>
<body><h1>Main &amp; title</h1><p>First <b>para</b><br>line two<p>Second para
<ul><li>a<ul><li>a.1<li>a.2</ul><li>b</ul>
<ol start="5"><li>five</ol>
<table><caption>Prices</caption><thead><tr><th colspan=2>Fruit<th>Qty</thead>
<tr><td rowspan="2">Apple<td>red<td>3<tr><td>green<td>4</table>
<section role="doc-endnotes"><ol><li>First note.</li><li><a href="#r2">2</a> Second note.</li></ol></section>
<pre><code class="language-py">print("hi")
  x = 1</code></pre><div>loose text <img src="http://example.invalid/x.png" alt="pic"></div></body></html>`;
    const path = await scratch.file('page.html', html);
    const doc = await parseDocument({ path, mediaType: 'text/html' });
    expect(doc.body.map((b) => b.type)).toEqual(['heading', 'paragraph', 'paragraph', 'list', 'list', 'table', 'code', 'paragraph', 'figure']);
    expect(doc.body[0]).toMatchObject({ level: 1, text: 'Main & title' });
    expect(doc.body[1]).toMatchObject({ text: 'First para\nline two' });
    expect(doc.body[2]).toMatchObject({ text: 'Second para' });
    expect(doc.body[3]).toMatchObject({ items: [{ text: 'a', children: [{ items: [{ text: 'a.1' }, { text: 'a.2' }] }] }, { text: 'b' }] });
    expect(doc.body[4]).toMatchObject({ ordered: true, start: 5, items: [{ text: 'five' }] });
    const table = doc.body[5] as TableBlock;
    expect(table).toMatchObject({ rows: 3, columns: 3, headerRows: 1, caption: 'Prices' });
    expect(table.cells[0]).toMatchObject({ row: 0, col: 0, colSpan: 2, text: 'Fruit', header: true });
    expect(table.cells.find((c) => c.text === 'Apple')).toMatchObject({ row: 1, col: 0, rowSpan: 2 });
    expect(table.cells.find((c) => c.text === 'green')).toMatchObject({ row: 2, col: 1 });
    expectCovered(table);
    expect(doc.body[6]).toMatchObject({ type: 'code', language: 'py', text: 'print("hi")\n  x = 1' });
    expect(doc.body[7]).toMatchObject({ text: 'loose text' });
    // A picture is a figure without asset: its URL is never fetched.
    expect(doc.body[8]).toEqual({ type: 'figure', alt: 'pic', origin: doc.origin });
    expect(doc.furniture).toEqual([
      { type: 'footnote', label: '1', text: 'First note.', origin: doc.origin },
      { type: 'footnote', label: '2', text: 'Second note.', origin: doc.origin },
    ]);
    expect(doc.text).not.toContain('not text');
    expect(doc.text).not.toContain('color');
  });

  it('EPUB: the spine in reading order through the HTML reader (headings, lists, tables); LibreOffice-written books too', async () => {
    const chapter = (title: string, body: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head><body>${body}</body></html>`;
    const book = buildZip([
      { name: 'mimetype', data: 'application/epub+zip', method: 0 },
      { name: 'META-INF/container.xml', data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>' },
      {
        name: 'OEBPS/content.opf',
        data: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>
          <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
          <item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/>
          <item id="css" href="style.css" media-type="text/css"/></manifest>
          <spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`,
      },
      { name: 'OEBPS/text/one.xhtml', data: chapter('One', '<h1>Chapter one</h1><p>It begins.</p><ul><li>first</li><li>second</li></ul>') },
      { name: 'OEBPS/text/chapter 2.xhtml', data: chapter('Two', '<h2>Chapter two</h2><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>') },
      { name: 'OEBPS/style.css', data: 'h1 { color: red }' },
    ]);
    const path = await scratch.file('book.epub', book);
    const doc = await parseDocument({ path, mediaType: 'application/epub+zip' });
    expect(doc.origin.parser).toBe('readpack-epub');
    expect(doc.body.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'heading', 'table']);
    expect(doc.body[0]).toMatchObject({ level: 1, text: 'Chapter one' });
    expect(doc.body[3]).toMatchObject({ level: 2, text: 'Chapter two' });
    expect(doc.body[4]).toMatchObject({ rows: 2, columns: 2, headerRows: 1 });

    // LibreOffice writes EPUB headings as styled paragraphs: text and table survive, levels cannot.
    const written = await scratch.file('report.epub', await sofficeConvert('report.fodt', flatOdt(), 'epub'));
    const lo = await parseDocument({ path: written, mediaType: 'application/epub+zip' });
    expect(tables(lo.body)[0]!.cells.map((c) => c.text)).toEqual(['Region', 'Revenue', 'North', '1200', 'South', '800']);
    expect(lo.text).toContain('Closing words of the report.');
    // Its footnote (`<aside epub:type="footnote">`) is furniture, and its reference mark leaves the text.
    expect(lo.furniture).toEqual([{ type: 'footnote', label: '1', text: 'A footnote about the figures.', origin: lo.origin }]);
    expect(lo.body.some((b) => b.type === 'paragraph' && b.text === 'The first paragraph of the annual report.')).toBe(true);
  }, 120_000);

  it('EPUB: a book without a package document is corrupt_document', async () => {
    const path = await scratch.file('empty.epub', buildZip([{ name: 'mimetype', data: 'application/epub+zip', method: 0 }]));
    expect(await rejectionCode(parseDocument({ path, mediaType: 'application/epub+zip' }))).toBe('corrupt_document');
  });

  it('plain text: paragraphs split on blank lines', async () => {
    const path = await scratch.file('p.txt', 'one\nstill one\n\n\ntwo\n');
    const doc = await parseDocument({ path, mediaType: 'text/plain' });
    expect(doc.body).toEqual([
      { type: 'paragraph', text: 'one\nstill one', origin: doc.origin },
      { type: 'paragraph', text: 'two', origin: doc.origin },
    ]);
  });
});

describe('hostile markup', () => {
  const origin = { parser: 'test', version: '0', engine: 'native' as const };
  const FRAGMENTS = ['<p>', '</p>', '<ul>', '<ol start="-3">', '<li>', '</li>', '</ul>', '<table>', '<tr>', '<td colspan="999999">', '<th rowspan=70000>', '</td>', '</tr>', '</table>', '<pre>', '</pre>', '<h3>', '</h3>', '<script>', '</script>', '<!--', '-->', '<!DOCTYPE x>', '&amp;', '&#x110000;', 'text', '\n', '<br>', '<img alt="a">', '<aside epub:type="footnote">', '<sup>1</sup>', '</aside>', '<div>', '</div>', '|', '---', '# ', '- ', '```', '> '];
  const markup = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 5 })), { maxLength: 60 }).map((parts) => parts.join(''));

  it('HTML and Markdown readers never throw, and every table they build covers its grid exactly once', () => {
    fc.assert(
      fc.property(markup, (source) => {
        const html = htmlDocument(source, origin);
        for (const block of [...html.body, ...markdownBlocks(source, origin)]) if (block.type === 'table') expectCovered(block);
      }),
      { numRuns: 300, seed: 20_261_201 },
    );
  });
});
