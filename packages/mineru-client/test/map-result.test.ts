import { describe, expect, it } from '@jest/globals';
import { mapMinerUResult, type MinerUContentItem, type MinerUResult } from '@readpack/mineru-client';

function result(contentList: MinerUContentItem[], extra: Partial<MinerUResult> = {}): MinerUResult {
  return { backend: 'hybrid-engine', version: '3.4.4', stem: 'doc', markdown: '# Title\n', contentList, middleJson: null, images: {}, ...extra };
}

const JPEG = 'data:image/jpeg;base64,/9j/4A==';

describe('mapMinerUResult', () => {
  it('maps every content_list type to a neutral block type', () => {
    const items: MinerUContentItem[] = [
      { type: 'text', text: 'Title ', text_level: 1, bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'text', text: 'Body', text_level: 0, bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'text', text: 'Body too', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'image', img_path: 'images/a.jpg', image_caption: ['Fig. 1 '], image_footnote: ['src'], bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'chart', img_path: 'images/a.jpg', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'table', img_path: 'images/a.jpg', table_body: '<table><tr><td>x</td></tr></table>', table_caption: ['T1'], table_footnote: [], bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'equation', text: '$$\na=b\n$$', text_format: 'latex', img_path: 'images/a.jpg', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'code', sub_type: 'algorithm', code_body: 'return 1', code_caption: ['Algorithm 1'], bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'list', sub_type: 'text', list_items: ['one', 'two'], bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'header', text: 'Journal', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'footer', text: 'Footer', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'page_number', text: '7', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'page_footnote', text: '* note', bbox: [1, 2, 3, 4], page_idx: 0 },
      { type: 'aside_text', text: 'margin', bbox: [1, 2, 3, 4], page_idx: 0 },
    ];
    const mapped = mapMinerUResult(result(items, { images: { 'a.jpg': JPEG } }));
    expect(mapped.blocks.map((b) => [b.type, b.sourceType])).toEqual([
      ['heading', 'text'],
      ['paragraph', 'text'],
      ['paragraph', 'text'],
      ['image', 'image'],
      ['image', 'chart'],
      ['table', 'table'],
      ['equation', 'equation'],
      ['code', 'code'],
      ['list', 'list'],
      ['header', 'header'],
      ['footer', 'footer'],
      ['page_number', 'page_number'],
      ['footnote', 'page_footnote'],
      ['other', 'aside_text'],
    ]);
    const [heading, , , image, , table, equation, code, list] = mapped.blocks;
    expect(heading).toMatchObject({ text: 'Title', level: 1 });
    expect(image).toMatchObject({ image: 'a.jpg', captions: ['Fig. 1'], footnotes: ['src'] });
    expect(image?.text).toBeUndefined();
    expect(table).toMatchObject({ html: '<table><tr><td>x</td></tr></table>', cells: [['x']], captions: ['T1'], image: 'a.jpg' });
    expect(table?.footnotes).toBeUndefined();
    expect(equation).toMatchObject({ text: '$$\na=b\n$$', image: 'a.jpg' });
    expect(code).toMatchObject({ text: 'return 1', captions: ['Algorithm 1'] });
    expect(list).toMatchObject({ text: 'one\ntwo' });
    expect(mapped.images).toEqual([{ name: 'a.jpg', mediaType: 'image/jpeg', data: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) }]);
    expect(mapped.markdown).toBe('# Title\n');
    expect(mapped.warnings).toEqual([]);
  });

  it('joins each page\'s text in reading order, leaving out headers, footers and page numbers', () => {
    const mapped = mapMinerUResult(
      result([
        { type: 'header', text: 'Running head', page_idx: 0, bbox: [0, 0, 1, 1] },
        { type: 'text', text: 'First ', text_level: 1, page_idx: 0, bbox: [0, 0, 1, 1] },
        { type: 'table', table_body: '<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>', table_caption: ['Cap'], table_footnote: ['Foot'], page_idx: 0, bbox: [0, 0, 1, 1] },
        { type: 'page_number', text: '1', page_idx: 0, bbox: [0, 0, 1, 1] },
        { type: 'text', text: 'Third page', page_idx: 2, bbox: [0, 0, 1, 1] },
      ]),
    );
    expect(mapped.pages).toEqual([
      { index: 0, text: 'First\nCap\na\tb\n1\t2\nFoot' },
      { index: 1, text: '' },
      { index: 2, text: 'Third page' },
    ]);
  });

  it('converts bboxes to points with the given page sizes, offset by the first parsed page', () => {
    const mapped = mapMinerUResult(result([{ type: 'text', text: 'x', page_idx: 0, bbox: [100, 250, 500, 1000] }]), {
      pageSizes: [{ widthPt: 100, heightPt: 100 }, { widthPt: 600, heightPt: 800 }],
      firstPageIndex: 1,
    });
    expect(mapped.blocks[0]).toMatchObject({ pageIndex: 1, bbox: [100, 250, 500, 1000], bboxPt: [60, 200, 300, 800] });
    expect(mapped.pages.map((page) => page.index)).toEqual([1]);
  });

  it('takes page sizes from middle_json when none are given', () => {
    const middleJson = { pdf_info: [{ page_idx: 0, page_size: [200, 400] }, { page_idx: 1, page_size: [1000, 1000] }], _backend: 'hybrid' };
    const mapped = mapMinerUResult(result([{ type: 'text', text: 'x', page_idx: 1, bbox: [10, 20, 30, 40] }], { middleJson }));
    expect(mapped.blocks[0]?.bboxPt).toEqual([10, 20, 30, 40]);
    expect(mapped.pages.map((page) => page.index)).toEqual([0, 1]);
  });

  it('reports what it cannot map instead of dropping it silently', () => {
    const mapped = mapMinerUResult(
      result(
        [
          { type: 'text', text: 'no page' } as unknown as MinerUContentItem,
          { type: 'text', text: 'no bbox', page_idx: 0 },
          { type: 'image', img_path: 'images/missing.jpg', page_idx: 0, bbox: [0, 0, 1, 1] },
        ],
        { images: { 'ok.jpg': JPEG, 'bad.jpg': 'images/bad.jpg' } },
      ),
    );
    expect(mapped.blocks.map((b) => b.text ?? b.image)).toEqual(['no bbox', 'missing.jpg']);
    expect(mapped.blocks[0]?.bbox).toEqual([0, 0, 0, 0]);
    expect(mapped.images.map((image) => image.name)).toEqual(['ok.jpg']);
    expect(mapped.warnings).toEqual([
      'content_list[0]: text without a page_idx',
      'content_list[1]: text without a valid bbox',
      'image bad.jpg: not a readable data URI',
      'page 0: image refers to missing image missing.jpg',
    ]);
  });

  it('maps a result without content_list or markdown to an empty document', () => {
    expect(mapMinerUResult(result([], { contentList: null, markdown: null }))).toEqual({ blocks: [], markdown: '', images: [], pages: [], warnings: [] });
  });
});
