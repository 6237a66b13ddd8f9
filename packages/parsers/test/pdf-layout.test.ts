import { describe, expect, it } from '@jest/globals';
import type { BBox, Origin, TableBlock } from '@readpack/reading-package';
import { flowBlocks } from '../src/pdf/flow.js';
import { findFurniture } from '../src/pdf/furniture.js';
import type { PageGraphics } from '../src/pdf/graphics-types.js';
import { documentHeadings, headingKey, HeadingEvidence } from '../src/pdf/headings.js';
import type { LineFragment, TextRun } from '../src/pdf/layout-types.js';
import { lineFragments } from '../src/pdf/lines.js';
import { parseListMarker } from '../src/pdf/list-markers.js';
import { characterErrorRate, readingOrderAccuracy } from '../src/pdf/metrics.js';
import { layoutPage } from '../src/pdf/page-layout.js';
import { paragraphsOf, type Paragraph } from '../src/pdf/paragraphs.js';
import { placeGraphics } from '../src/pdf/place-graphics.js';
import { joinLines } from '../src/pdf/text-join.js';
import { layoutFrame, textRuns } from '../src/pdf/text-items.js';
import { readingOrder } from '../src/pdf/xy-cut.js';

const origin: Origin = { parser: 'pdfjs-dist', version: 'test', engine: 'text-layer' };

/** A run of `text` at (x, baseline y) in top-left page coordinates, 10 pt, 5 pt per character. */
function run(text: string, x: number, y: number, opts: { size?: number; bold?: boolean } = {}): TextRun {
  const size = opts.size ?? 10;
  return { text, bbox: [x, y - 0.8 * size, x + text.length * size * 0.5, y + 0.2 * size], size, bold: opts.bold ?? false, italic: false, direction: 'right' };
}

function frag(text: string, x: number, y: number, opts: { size?: number; bold?: boolean } = {}): LineFragment {
  const r = run(text, x, y, opts);
  return { text, bbox: r.bbox, size: r.size, bold: r.bold, italic: false };
}

const texts = (items: { text: string }[]): string[] => items.map((i) => i.text);

describe('lines', () => {
  it('joins runs on one baseline with spaces and splits at a gutter', () => {
    const fragments = lineFragments([run('world', 130, 100), run('Hello', 100, 100), run('right', 320, 100.5), run('next', 100, 114)]);
    expect(texts(fragments)).toEqual(['Hello world', 'right', 'next']);
  });

  it('drops the second copy of fake-bold text', () => {
    expect(texts(lineFragments([run('Bold', 100, 100), run('Bold', 100.3, 100)]))).toEqual(['Bold']);
  });
});

describe('reading order (XY-cut)', () => {
  const twoColumns = (): LineFragment[] => {
    const items: LineFragment[] = [];
    // Interleaved as a content stream might draw them: left, right, left, right…
    for (let i = 0; i < 6; i += 1) {
      items.push(frag(`left ${i} lorem ipsum dolor`, 72, 200 + i * 12));
      items.push(frag(`right ${i} lorem ipsum dolor`, 320, 200 + i * 12));
    }
    return items;
  };

  it('reads a two-column block column by column', () => {
    const order = texts(readingOrder(twoColumns(), 10));
    expect(order).toEqual([...[0, 1, 2, 3, 4, 5].map((i) => `left ${i} lorem ipsum dolor`), ...[0, 1, 2, 3, 4, 5].map((i) => `right ${i} lorem ipsum dolor`)]);
  });

  it('keeps a full-width title first and a full-width footer paragraph last', () => {
    const items = [...twoColumns(), frag('A title that spans both of the columns of the page, wide', 72, 150), frag('A closing paragraph that spans both columns of the page too', 72, 300)];
    const order = texts(readingOrder(items.reverse(), 10));
    expect(order[0]).toMatch(/^A title/);
    expect(order[1]).toBe('left 0 lorem ipsum dolor');
    expect(order[6]).toBe('left 5 lorem ipsum dolor');
    expect(order[7]).toBe('right 0 lorem ipsum dolor');
    expect(order[order.length - 1]).toMatch(/^A closing/);
  });

  it('reads the rows of a table without rules across, and the line under it after them', () => {
    // A two-column table far apart (as LibreOffice sets one), then a sentence longer than the
    // first column: the gutter runs through all of them, but short cells are no text column.
    const items = [
      frag('Region', 57, 120), frag('Revenue', 298, 120),
      frag('North', 57, 134), frag('1200', 298, 134),
      frag('South', 57, 148), frag('800', 298, 148),
      frag('Closing words of the', 57, 162), frag('report.', 298, 176),
    ];
    expect(texts(readingOrder(items.reverse(), 10))).toEqual(['Region', 'Revenue', 'North', '1200', 'South', '800', 'Closing words of the', 'report.']);
  });

  it('still reads two forms side by side block by block (labels and values in each)', () => {
    const items = [
      frag('Customer', 57, 100), frag('Vehicle', 320, 100),
      frag('Name', 57, 114), frag('Gabriel', 130, 114), frag('Year', 320, 114), frag('2022', 390, 114),
      frag('Claim', 57, 128), frag('SF-1008', 130, 128), frag('Make', 320, 128), frag('Jeep', 390, 128),
      frag('Phone', 57, 142), frag('111-1111', 130, 142), frag('Model', 320, 142), frag('Cherokee', 390, 142),
    ];
    expect(texts(readingOrder(items.reverse(), 10))).toEqual(['Customer', 'Name', 'Gabriel', 'Claim', 'SF-1008', 'Phone', '111-1111', 'Vehicle', 'Year', '2022', 'Make', 'Jeep', 'Model', 'Cherokee']);
  });

  it('does not split bullets from their text', () => {
    const items = [frag('•', 72, 100), frag('first item text here', 90, 100), frag('•', 72, 112), frag('second item text here', 90, 112)];
    expect(texts(readingOrder(items, 10))).toEqual(['•', 'first item text here', '•', 'second item text here']);
  });
});

describe('joining lines', () => {
  it('joins a word hyphenated across a line break and keeps real hyphens', () => {
    expect(joinLines('the infor-', 'mation is')).toBe('the information is');
    expect(joinLines('Nord-', 'Süd')).toBe('Nord-Süd');
    expect(joinLines('a well-known', 'fact')).toBe('a well-known fact');
    expect(joinLines('soft\u00ad', 'hyphen')).toBe('softhyphen');
    expect(joinLines('日本語の', '文章')).toBe('日本語の文章');
  });
});

describe('list markers', () => {
  it.each([
    ['• item', '•', false, undefined],
    ['- item', '-', false, undefined],
    ['– item', '–', false, undefined],
    ['3. item', '3.', true, 3],
    ['2) item', '2)', true, 2],
    ['c) item', 'c)', true, 3],
    ['(iv) item', '(iv)', true, 4],
    ['iv. item', 'iv.', true, 4],
  ])('%s', (text, marker, ordered, value) => {
    const parsed = parseListMarker(text);
    expect(parsed?.marker).toEqual({ marker, ordered, ...(value !== undefined ? { value } : {}) });
    expect(parsed?.rest).toBe('item');
  });

  it('leaves plain text, decimals and initials alone', () => {
    for (const text of ['Plain text', '1.5 metres', 'C. Smith wrote', '2024. A year']) expect(parseListMarker(text)).toBeUndefined();
  });
});

describe('paragraphs', () => {
  it('splits on indentation and on a wider gap, and joins hyphenated words', () => {
    const lines = [
      frag('First paragraph starts here and the infor-', 90, 100),
      frag('mation goes on to the end of the line here', 72, 112),
      frag('and stops.', 72, 124),
      frag('Second paragraph is indented on its first line', 90, 136),
      frag('and continues below.', 72, 148),
      frag('Third one after a gap.', 72, 175),
    ];
    const paras = paragraphsOf(lines, 12);
    expect(texts(paras)).toEqual([
      'First paragraph starts here and the information goes on to the end of the line here and stops.',
      'Second paragraph is indented on its first line and continues below.',
      'Third one after a gap.',
    ]);
  });

  it('keeps the lines of a centred paragraph together', () => {
    const paras = paragraphsOf([frag('A centred caption that runs over', 100, 100), frag('two lines here', 145, 112)], 12);
    expect(texts(paras)).toEqual(['A centred caption that runs over two lines here']);
  });

  it('keeps a list item and its indented continuation line together', () => {
    const paras = paragraphsOf([frag('• An item that wraps', 72, 100), frag('onto a second line', 84, 112), frag('• Another item', 72, 124)], 12);
    expect(paras.map((p) => [p.marker?.marker, p.text])).toEqual([
      ['•', 'An item that wraps onto a second line'],
      ['•', 'Another item'],
    ]);
  });
});

const para = (text: string, size: number, opts: Partial<Paragraph> = {}): Paragraph => ({ text, size, bold: false, lineCount: 1, bbox: [72, 100, 300, 110], ...opts });

describe('headings', () => {
  it('finds the body size and levels by distinct larger sizes, bold body-size lines below them', () => {
    const body = para('Body text '.repeat(40), 10, { lineCount: 5 });
    const h1 = para('Chapter', 20);
    const h2 = para('Section', 14);
    const h3 = para('Bold run', 10, { bold: true });
    const all = [h1, body, h2, body, h3, body];
    const evidence = new HeadingEvidence([]);
    for (const p of all) evidence.add(p, 0);
    expect(evidence.bodySize()).toBe(10);
    const levels = documentHeadings([all], []);
    expect([levels.get(h1), levels.get(h2), levels.get(h3), levels.get(body)]).toEqual([1, 2, 3, undefined]);
  });

  it('takes outline levels for matching titles (numbering aside), nearest to the destination', () => {
    const far = para('Results', 10, { bbox: [72, 700, 200, 710] });
    const near = para('2 Results', 10, { bbox: [72, 300, 200, 310] });
    const levels = documentHeadings([[far, near]], [{ title: 'Results', level: 2, page: 0, y: 295 }]);
    expect(levels.get(near)).toBe(2);
    expect(levels.has(far)).toBe(false);
    expect(headingKey('1.2 Topologische Räume')).toBe('topologische räume');
  });
});

describe('furniture', () => {
  it('tags repeated first/last rows and bare page numbers in the bands, not body text', () => {
    const page = (n: number) => ({
      height: 800,
      fragments: [frag(`Annual report ${2020 + n}`, 72, 40), frag(`Body text unique to page ${n} `.repeat(3), 72, 200), frag(String(n + 1), 300, 780)],
    });
    const found = findFurniture([page(0), page(1), page(2)], 10);
    for (const marks of found) expect([...marks.entries()].sort()).toEqual([
      [0, 'page_header'],
      [2, 'page_footer'],
    ]);
  });
});

describe('page numbers further from the edge', () => {
  it('are furniture when they count with the pages, and diagram labels on a last row are not', () => {
    const page = (n: number, last: LineFragment[]) => ({ height: 800, fragments: [frag(`Body text of page ${n} that is long enough`, 72, 300), ...last] });
    const found = findFurniture([page(0, [frag('1', 300, 700)]), page(1, [frag('2', 300, 700)]), page(2, [frag('1', 200, 690), frag('2', 260, 690)])], 10);
    expect(found.map((marks) => [...marks.keys()])).toEqual([[1], [1], []]);
  });
});

describe('vertical text frame', () => {
  it('turns columns written top to bottom, right to left, into lines read in that order', () => {
    const frame = layoutFrame('down', 600, 800);
    const columns = [run('一行目', 500, 100), run('二行目', 480, 100)].map((r) => ({ ...r, bbox: [r.bbox[0], 100, r.bbox[0] + 10, 130] as BBox }));
    const fragments = lineFragments(columns.map((r) => ({ ...r, bbox: frame.toFrame(r.bbox) })));
    expect(texts(readingOrder(fragments, 10))).toEqual(['一行目', '二行目']);
    expect(frame.toPage(frame.toFrame([500, 100, 510, 130]))).toEqual([500, 100, 510, 130]);
  });

  it('turns boxes back exactly in every direction', () => {
    for (const direction of ['right', 'down', 'left', 'up'] as const) {
      const frame = layoutFrame(direction, 600, 800);
      expect(frame.toPage(frame.toFrame([10, 20, 30, 60]))).toEqual([10, 20, 30, 60]);
    }
  });

  it('measures vertical items downwards from one size above their origin', () => {
    const [r] = textRuns([{ str: '縦書き', dir: 'ttb', transform: [10, 0, 0, 10, 500, 700], width: 10, height: 30, fontName: 'f' }], () => ({ bold: false, italic: false, vertical: true }), (x, y) => [x, 800 - y]);
    expect(r?.bbox).toEqual([500, 90, 510, 120]);
  });
});

describe('graphics placement', () => {
  const image = { name: 'image-1.png', mediaType: 'image/png', data: new Uint8Array([1]), sha256: 'abc', page: 0 };
  const tableBlock = (): TableBlock => ({ type: 'table', rows: 1, columns: 2, headerRows: 0, cells: [], origin });

  it('puts figures and tables into the reading order by their boxes and attaches captions', () => {
    const graphics: PageGraphics = {
      figures: [{ bbox: [72, 150, 300, 300], image }],
      tables: [{ bbox: [72, 400, 500, 450], rows: 1, columns: 2, cells: [] }],
    };
    const runs = [run('Text above the figure.', 72, 120), run('Figure 1: A picture.', 72, 315), run('cell', 80, 420), run('Table 2: Numbers.', 72, 465), run('Text below.', 72, 520)];
    const fill = (): { block: TableBlock; used: Set<number> } => ({ block: tableBlock(), used: new Set([2]) });
    const placement = placeGraphics(graphics, runs, 0, origin, fill);
    expect(texts(placement.runs)).not.toContain('cell');
    expect(placement.images).toEqual([image]);
    const units = layoutPage({ page: 0, fragments: lineFragments(placement.runs), graphics: placement.placed, unit: 10, toPage: (b) => b, origin });
    const body = flowBlocks([units], [], origin);
    expect(body.map((b) => b.type)).toEqual(['paragraph', 'figure', 'table', 'caption', 'paragraph']);
    expect(body[1]).toMatchObject({ type: 'figure', asset: 'abc', caption: 'Figure 1: A picture.', page: 0, bbox: [72, 150, 300, 300] });
    expect(body[2]).toMatchObject({ type: 'table', caption: 'Table 2: Numbers.', page: 0 });
    expect(body[3]).toMatchObject({ type: 'caption', text: 'Table 2: Numbers.' });
  });

  it('does not fill tables when the page has none', () => {
    const fill = (): never => {
      throw new Error('not called');
    };
    expect(placeGraphics({ figures: [], tables: [] }, [run('x', 0, 10)], 0, origin, fill).runs).toHaveLength(1);
  });
});

describe('lists', () => {
  it('nests by indentation and keeps the kind, start and markers', () => {
    const lines = [frag('3. third', 72, 100), frag('- sub a', 90, 112), frag('- sub b', 90, 124), frag('4. fourth', 72, 136), frag('After the list, a paragraph.', 72, 170)];
    const units = layoutPage({ page: 0, fragments: lines, graphics: [], unit: 10, toPage: (b) => b, origin });
    const body = flowBlocks([units], [], origin);
    expect(body[0]).toMatchObject({ type: 'list', ordered: true, start: 3 });
    const list = body[0]!.type === 'list' ? body[0] : undefined;
    expect(list?.items.map((i) => [i.marker, i.text])).toEqual([
      ['3.', 'third'],
      ['4.', 'fourth'],
    ]);
    expect(list?.items[0]?.children?.[0]).toMatchObject({ type: 'list', ordered: false });
    expect(list?.items[0]?.children?.[0]?.items.map((i) => i.text)).toEqual(['sub a', 'sub b']);
    expect(body[1]).toMatchObject({ type: 'paragraph', text: 'After the list, a paragraph.' });
  });
});

describe('lone numbered lines', () => {
  it('stay paragraphs with their number: a one-item numbered list is no list', () => {
    const lines = [frag('(425) 111-1111', 72, 100), frag('Some paragraph after it.', 72, 130)];
    const body = flowBlocks([layoutPage({ page: 0, fragments: lines, graphics: [], unit: 10, toPage: (b) => b, origin })], [], origin);
    expect(body.map((b) => [b.type, b.type === 'paragraph' ? b.text : ''])).toEqual([
      ['paragraph', '(425) 111-1111'],
      ['paragraph', 'Some paragraph after it.'],
    ]);
  });
});

describe('metrics', () => {
  it('computes the character error rate over code points after folding whitespace', () => {
    expect(characterErrorRate('abc def', 'abc  def\n')).toBe(0);
    expect(characterErrorRate('abcd', 'abxd')).toBe(0.25);
    expect(characterErrorRate('𝔸𝔹', '𝔸')).toBe(0.5);
    expect(characterErrorRate('', '')).toBe(0);
    expect(characterErrorRate('', 'x')).toBe(1);
  });

  it('measures reading order as the share of consecutive line pairs in order', () => {
    expect(readingOrderAccuracy(['one', 'two', 'three'], 'one two three')).toBe(1);
    expect(readingOrderAccuracy(['one', 'two', 'three'], 'two three one')).toBe(0.5);
    expect(readingOrderAccuracy(['a b', 'c'], 'a\nb c')).toBe(1);
    expect(readingOrderAccuracy(['only'], '')).toBe(1);
  });
});
