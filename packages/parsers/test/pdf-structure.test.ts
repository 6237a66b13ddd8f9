import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildPdf, streamObject } from '@readpack/testing';
import { walkBlocks, type ListBlock } from '@readpack/reading-package';
import { parseDocument, type ParsedDocument } from '../src/index.js';
import { readingOrderAccuracy } from '../src/pdf/metrics.js';
import { PDF, rejectionCode, scratchDir } from './helpers.js';
import { line, textPdf } from './pdf-text-pdfs.js';

describe('PDF structured extraction', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });
  const parse = async (name: string, pdf: Buffer): Promise<ParsedDocument> => parseDocument({ path: await scratch.file(name, pdf), mediaType: PDF });

  it('reads a two-column page column by column although its content stream interleaves them', async () => {
    const left = ['Left column opens the text', 'and goes on down the page', 'with its own lines of words', 'until the column ends here.'];
    const right = ['Right column comes second', 'once the left one is done', 'and it has four lines too', 'closing the whole page.'];
    let content = line(72, 80, 'A Title Across Both Columns', { size: 18, bold: true });
    left.forEach((text, i) => {
      content += line(72, 130 + i * 12, text);
      content += line(320, 130 + i * 12, right[i]!);
    });
    const doc = await parse('columns.pdf', textPdf([content]));
    expect(doc.body[0]).toMatchObject({ type: 'heading', level: 1, text: 'A Title Across Both Columns', page: 0 });
    expect(readingOrderAccuracy(['A Title Across Both Columns', ...left, ...right], doc.text)).toBe(1);
    expect(doc.body.slice(1).map((b) => (b.type === 'paragraph' ? b.text : b.type))).toEqual([left.join(' '), right.join(' ')]);
    const [x0, y0, x1, y1] = doc.body[1]!.bbox!;
    expect(x0).toBeCloseTo(72, 0);
    expect(x1).toBeLessThan(320);
    expect(y0).toBeGreaterThan(110);
    expect(y1).toBeLessThan(180);
    expect(doc.pages?.[0]).toMatchObject({ width: 612, height: 792 });
    expect(doc.body[0]!.origin).toMatchObject({ parser: 'pdfjs-dist', engine: 'text-layer' });
  });

  it('tags running headers, footers and page numbers as furniture and leaves them out of the text', async () => {
    const pages = [1, 2, 3].map(
      (n) => line(72, 40, 'Readpack Quarterly Report') + line(500, 40, `Chapter ${n}`) + line(72, 120, `Body text of page ${n} talks about topic number ${n * 7}.`) + line(290, 770, `Page ${n} of 3`),
    );
    const doc = await parse('furniture.pdf', textPdf(pages));
    expect(doc.furniture.map((b) => [b.type, b.page, b.text])).toEqual([
      ['page_header', 0, 'Readpack Quarterly Report'],
      ['page_header', 0, 'Chapter 1'],
      ['page_footer', 0, 'Page 1 of 3'],
      ['page_header', 1, 'Readpack Quarterly Report'],
      ['page_header', 1, 'Chapter 2'],
      ['page_footer', 1, 'Page 2 of 3'],
      ['page_header', 2, 'Readpack Quarterly Report'],
      ['page_header', 2, 'Chapter 3'],
      ['page_footer', 2, 'Page 3 of 3'],
    ]);
    expect(doc.text).not.toMatch(/Quarterly|Chapter|Page \d of/);
    expect(doc.pages?.map((p) => p.text)).toEqual([1, 2, 3].map((n) => `Body text of page ${n} talks about topic number ${n * 7}.`));
  });

  it('makes outline entries headings at their outline depth', async () => {
    const body = (top: number, words: string) => line(72, top, `${words} is explained in this paragraph of plain body text.`);
    const page1 = line(72, 80, 'Introduction') + body(100, 'The purpose') + line(72, 140, 'Background') + body(160, 'The history');
    const page2 = line(72, 80, 'Results') + body(100, 'The outcome') + line(72, 140, 'Discussion of Results');
    const doc = await parse('outline.pdf', textPdf([page1, page2], [
      { title: 'Introduction', page: 0, top: 80, children: [{ title: 'Background', page: 0, top: 140 }] },
      { title: 'Results', page: 1, top: 80 },
    ]));
    const headings = doc.body.filter((b) => b.type === 'heading').map((b) => (b.type === 'heading' ? [b.text, b.level, b.page] : []));
    expect(headings).toEqual([
      ['Introduction', 1, 0],
      ['Background', 2, 0],
      ['Results', 1, 1],
    ]);
    expect(doc.body.find((b) => b.type === 'paragraph' && b.text === 'Discussion of Results')).toBeDefined();
  });

  it('follows the outline when there is one: bold run-in labels at body size stay paragraphs', async () => {
    const body = (top: number, words: string) => line(72, top, `${words} is explained in this paragraph of plain body text.`);
    const labels = (top: number) => line(72, top, 'Definition 1', { bold: true }) + body(top + 14, 'A term') + line(72, top + 40, 'Beweis', { bold: true }) + body(top + 54, 'The proof');
    const page = line(72, 80, '1 Grundbegriffe', { size: 16, bold: true }) + body(110, 'The chapter') + labels(140) + line(72, 240, 'Vorwort', { size: 16, bold: true }) + body(270, 'The preface');
    const outlined = await parse('labels-outline.pdf', textPdf([page], [{ title: '1 Grundbegriffe', page: 0, top: 80 }]));
    const kinds = (doc: ParsedDocument) => doc.body.filter((b) => b.type === 'heading' || /^(Definition|Beweis|Vorwort)/.test('text' in b ? b.text : '')).map((b) => [b.type, 'text' in b ? b.text : '']);
    // With the outline, a heading size it uses (16 pt) but an entry missing from it is left out by the author.
    expect(kinds(outlined)).toEqual([
      ['heading', '1 Grundbegriffe'],
      ['paragraph', 'Definition 1'],
      ['paragraph', 'Beweis'],
      ['paragraph', 'Vorwort'],
    ]);
    // Without one, font statistics decide: larger lines and short bold lines are headings.
    const plain = await parse('labels-plain.pdf', textPdf([page]));
    expect(kinds(plain).map(([type]) => type)).toEqual(['heading', 'heading', 'heading', 'heading']);
  });

  it('joins words hyphenated across line breaks and keeps hyphens inside lines', async () => {
    const content = line(72, 100, 'Structured extraction of infor-') + line(72, 112, 'mation is a well-known problem of docu-') + line(72, 124, 'ment analysis.');
    const doc = await parse('hyphens.pdf', textPdf([content]));
    expect(doc.text).toBe('Structured extraction of information is a well-known problem of document analysis.');
  });

  it('keeps a word broken at a list item\'s line end in the item when the next line runs back under the marker', async () => {
    const content = line(72, 100, 'a) X ist differenzierbar, wenn jede Karten-') + line(72, 112, 'wechselabbildung differenzierbar ist.') + line(72, 124, 'b) Zweiter Punkt.');
    const doc = await parse('list-hyphen.pdf', textPdf([content]));
    const list = doc.body.find((b): b is ListBlock => b.type === 'list');
    expect(list?.items.map((i) => i.text)).toEqual(['X ist differenzierbar, wenn jede Kartenwechselabbildung differenzierbar ist.', 'Zweiter Punkt.']);
  });

  it('turns bullets and numbered items into lists, nested by indentation', async () => {
    const content =
      line(72, 80, 'Shopping notes before the list.') +
      line(72, 110, '• Fruit') +
      line(90, 122, '1. Apples') +
      line(90, 134, '2. Pears') +
      line(72, 146, '• Vegetables that need a long') +
      line(82, 158, 'description on two lines') +
      line(72, 190, 'a) first option') +
      line(72, 202, 'b) second option');
    const doc = await parse('lists.pdf', textPdf([content]));
    const lists = doc.body.filter((b): b is ListBlock => b.type === 'list');
    expect(lists).toHaveLength(2);
    const [bullets, letters] = lists as [ListBlock, ListBlock];
    expect(bullets.ordered).toBe(false);
    expect(bullets.items.map((i) => [i.marker, i.text])).toEqual([
      ['•', 'Fruit'],
      ['•', 'Vegetables that need a long description on two lines'],
    ]);
    const nested = bullets.items[0]!.children?.[0];
    expect(nested).toMatchObject({ type: 'list', ordered: true });
    expect(nested?.start).toBeUndefined();
    expect(nested?.items.map((i) => [i.marker, i.text])).toEqual([
      ['1.', 'Apples'],
      ['2.', 'Pears'],
    ]);
    expect(letters).toMatchObject({ ordered: true });
    expect(letters.items.map((i) => i.marker)).toEqual(['a)', 'b)']);
    for (const block of walkBlocks(doc.body)) expect(block.page).toBe(0);
  });

  it('measures a rotated page in its displayed orientation and survives a page box that is no box', async () => {
    const page = (box: string, extra: string): Buffer =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox ${box}${extra} /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
        streamObject(line(72, 100, 'Text on a turned page') + line(72, 112, 'and its second line')),
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      ]);
    const rotated = await parse('rotated.pdf', page('[0 0 612 792]', ' /Rotate 90'));
    expect(rotated.text).toBe('Text on a turned page and its second line');
    expect(rotated.pages?.[0]).toMatchObject({ width: 792, height: 612 });
    const [x0, y0, x1, y1] = rotated.body[0]!.bbox!;
    expect([x0, x1].every((x) => x >= 0 && x <= 792) && [y0, y1].every((y) => y >= 0 && y <= 612)).toBe(true);
    const boxless = await parse('boxless.pdf', page('[0 0 0 0]', ''));
    expect(boxless.text).toBe('Text on a turned page and its second line');
  });

  describe('declared page counts', () => {
    const twoPages = (count: string): Buffer =>
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        `<< /Type /Pages /Kids [3 0 R 5 0 R] /Count ${count} >>`,
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 7 0 R >> >> >>',
        streamObject('BT /F1 12 Tf 72 700 Td (First real page) Tj ET'),
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>',
        streamObject('BT /F1 12 Tf 72 700 Td (Second real page) Tj ET'),
        '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      ]);

    it.each(['-1', '0', '1'])('fails corrupt_document for /Count %s over two real pages', async (count) => {
      const path = await scratch.file(`count${count}.pdf`, twoPages(count));
      expect(await rejectionCode(parseDocument({ path, mediaType: PDF }))).toBe('corrupt_document');
    });

    it('reads the real pages when /Count claims more', async () => {
      const doc = await parse('count5.pdf', twoPages('5'));
      expect(doc.pages?.map((p) => p.text)).toEqual(['First real page', 'Second real page']);
    });
  });
});
