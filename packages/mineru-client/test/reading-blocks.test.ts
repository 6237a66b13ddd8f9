import { describe, expect, it } from '@jest/globals';
import { mapMinerUResult, mineruBlocks, type MinerUContentItem, type MinerUResult } from '@readpack/mineru-client';
import { documentText, numberBlocks, renderMarkdown, SCHEMA_VERSION, type Origin } from '@readpack/reading-package';
import { assertValidPackage } from '@readpack/testing';

const origin: Origin = { parser: 'mineru', version: '3.4.4', engine: 'mineru' };
const JPEG = 'data:image/jpeg;base64,/9j/4A==';
const SHA = 'c'.repeat(64);

function mapped(items: MinerUContentItem[]) {
  const result: MinerUResult = { backend: 'hybrid-engine', version: '3.4.4', stem: 'doc', markdown: '', contentList: items, middleJson: null, images: { 'a.jpg': JPEG } };
  return mapMinerUResult(result, { pageSizes: [{ widthPt: 600, heightPt: 800 }] });
}

describe('MinerU content list as reading-package blocks', () => {
  const items: MinerUContentItem[] = [
    { type: 'header', text: 'Journal of Things', bbox: [0, 0, 1000, 30], page_idx: 0 },
    { type: 'text', text: 'Results', text_level: 2, bbox: [100, 50, 900, 80], page_idx: 0 },
    { type: 'text', text: 'We measured.', bbox: [100, 100, 900, 200], page_idx: 0 },
    { type: 'image', img_path: 'images/a.jpg', image_caption: ['Fig. 1 Setup'], image_footnote: ['Photo: us'], bbox: [100, 200, 900, 500], page_idx: 0 },
    {
      type: 'table',
      img_path: 'images/a.jpg',
      table_body: '<table><tr><th colspan="2">Group</th><th rowspan="2">n</th></tr><tr><td>a</td><td>b</td></tr></table>',
      table_caption: ['Table 1'],
      bbox: [100, 500, 900, 700],
      page_idx: 0,
    },
    { type: 'equation', text: '$$\na=b\n$$', text_format: 'latex', bbox: [100, 700, 900, 750], page_idx: 0 },
    { type: 'list', sub_type: 'text', list_items: ['one', 'two'], bbox: [100, 750, 900, 800], page_idx: 0 },
    { type: 'page_number', text: '7', bbox: [480, 960, 520, 990], page_idx: 0 },
    { type: 'page_footnote', text: '* note', bbox: [100, 900, 900, 950], page_idx: 0 },
  ];
  const doc = mineruBlocks(mapped(items).blocks, origin, (name) => (name === 'a.jpg' ? SHA : undefined));

  it('keeps headings, figures with captions, tables with spans and LaTeX formulas in the body, in order', () => {
    expect(doc.body.map((b) => b.type)).toEqual(['heading', 'paragraph', 'figure', 'caption', 'table', 'formula', 'list']);
    expect(doc.body[0]).toMatchObject({ type: 'heading', level: 2, text: 'Results', page: 0, bbox: [60, 40, 540, 64] });
    expect(doc.body[2]).toMatchObject({ type: 'figure', asset: SHA, caption: 'Fig. 1 Setup' });
    expect(doc.body[4]).toMatchObject({
      type: 'table',
      rows: 2,
      columns: 3,
      headerRows: 1,
      caption: 'Table 1',
      cells: [
        { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Group', header: true },
        { row: 0, col: 2, rowSpan: 2, colSpan: 1, text: 'n', header: true },
        { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: 'a' },
        { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: 'b' },
      ],
    });
    expect(doc.body[5]).toMatchObject({ type: 'formula', format: 'latex', text: 'a=b' });
  });

  it('puts running headers, page numbers and page footnotes in furniture', () => {
    expect(doc.furniture.map((b) => [b.type, b.text])).toEqual([
      ['page_header', 'Journal of Things'],
      ['page_footer', '7'],
      ['footnote', '* note'],
    ]);
  });

  it('makes a package that validates against the published schema', () => {
    numberBlocks(doc);
    const manifest = {
      schemaVersion: SCHEMA_VERSION,
      packageId: 'job_m',
      jobId: 'job_m',
      tenant: 't',
      source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1, sha256: SHA },
      origin,
      text: documentText(doc),
      markdown: renderMarkdown(doc, { assetUrl: (s) => `/api/assets/job_m.${s}` }),
      body: doc.body,
      furniture: doc.furniture,
      tables: [],
      assets: [{ sha256: SHA, mediaType: 'image/jpeg', size: 4, role: 'figure' }],
    };
    expect(() => assertValidPackage(manifest)).not.toThrow();
    expect(manifest.markdown).toContain('<th colspan="2">Group</th>');
  });
});
