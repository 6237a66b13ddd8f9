import { describe, expect, it } from '@jest/globals';
import { assertValidPackage, packageSchema } from '@readpack/testing';
import {
  BLOCK_TYPES,
  documentText,
  gridTable,
  numberBlocks,
  renderMarkdown,
  SCHEMA_VERSION,
  tableGrid,
  type DocumentBlocks,
  type Origin,
  type PackageManifest,
  type TableBlock,
} from '../src/index.js';

const origin: Origin = { parser: 'test', version: '1', engine: 'native' };
const sha = 'ab'.repeat(32);
const assetUrl = (s: string) => `/api/assets/job_x.${s}`;

function sample(): DocumentBlocks {
  const merged: TableBlock = {
    type: 'table',
    rows: 2,
    columns: 3,
    headerRows: 1,
    origin,
    cells: [
      { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Name', header: true },
      { row: 0, col: 2, rowSpan: 2, colSpan: 1, text: 'Total', header: true },
      { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: 'a' },
      { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: 'b' },
    ],
  };
  return {
    body: [
      { type: 'heading', level: 1, text: 'Report *2024*', origin, page: 0, bbox: [72, 72, 300, 96] },
      { type: 'paragraph', text: '# not a heading\nsecond line', origin },
      {
        type: 'list',
        ordered: true,
        origin,
        items: [
          { type: 'list_item', text: 'one', origin, children: [{ type: 'list', ordered: false, origin, items: [{ type: 'list_item', text: 'inner', origin }] }] },
          { type: 'list_item', text: 'two', origin },
        ],
      },
      gridTable([['h1', 'h|2'], ['x', 'y']], origin, 1),
      merged,
      { type: 'figure', asset: sha, alt: 'A chart', caption: 'Figure 1: sales', origin },
      { type: 'formula', format: 'latex', text: 'E = mc^2', origin },
      { type: 'code', text: 'let x = 1;', language: 'js', origin },
    ],
    furniture: [
      { type: 'page_header', text: 'ACME Corp', origin, page: 0 },
      { type: 'footnote', label: '1', text: 'A note.', origin },
    ],
  };
}

describe('block model', () => {
  it('keeps the JSON Schema and the TypeScript block types in step', () => {
    const defs = (packageSchema() as { $defs: Record<string, { properties?: { type?: { const?: string; enum?: string[] } } }> }).$defs;
    const inSchema = new Set<string>();
    for (const def of Object.values(defs)) {
      const type = def.properties?.type;
      if (type?.const) inSchema.add(type.const);
      for (const t of type?.enum ?? []) inSchema.add(t);
    }
    expect([...inSchema].sort()).toEqual([...BLOCK_TYPES].sort());
  });

  it('numbers blocks in reading order, nested list items included', () => {
    const doc = sample();
    numberBlocks(doc);
    const list = doc.body[2];
    expect(doc.body[0]?.id).toBe('b0');
    expect(list?.type === 'list' && list.items[0]?.children?.[0]?.items[0]?.id).toBe('b5');
    expect(doc.furniture.map((b) => b.id)).toEqual(['f0', 'f1']);
  });

  it('gives a merged table as a grid with the text in the top-left position', () => {
    const table = sample().body[4] as TableBlock;
    expect(tableGrid(table)).toEqual([
      ['Name', '', 'Total'],
      ['a', 'b', ''],
    ]);
  });
});

describe('text', () => {
  it('is the main flow in reading order with footnotes after it, without running headers', () => {
    const text = documentText(sample());
    expect(text).not.toContain('ACME Corp');
    expect(text.split('\n\n')[0]).toBe('Report *2024*');
    expect(text).toContain('1. one\n  - inner\n2. two');
    expect(text).toContain('h1\th|2\nx\ty');
    expect(text.endsWith('A note.')).toBe(true);
  });
});

describe('markdown', () => {
  const md = renderMarkdown(sample(), { assetUrl });

  it('renders headings, escaped text and nested lists', () => {
    expect(md).toContain('# Report \\*2024\\*\n');
    expect(md).toContain('\\# not a heading\nsecond line');
    expect(md).toContain('1. one\n   - inner\n2. two');
  });

  it('renders a table without spans as a pipe table and one with spans as HTML', () => {
    expect(md).toContain('| h1 | h\\|2 |\n| --- | --- |\n| x | y |');
    expect(md).toContain('<th colspan="2">Name</th><th rowspan="2">Total</th>');
  });

  it('links figures to their asset, and ends with the footnotes; headers stay out', () => {
    expect(md).toContain(`![A chart](/api/assets/job_x.${sha})\n\n*Figure 1: sales*`);
    expect(md).toContain('$$\nE = mc^2\n$$');
    expect(md).toContain('```js\nlet x = 1;\n```');
    expect(md.trimEnd().endsWith('[^1]: A note.')).toBe(true);
    expect(md).not.toContain('ACME Corp');
  });
});

describe('JSON Schema', () => {
  const manifest = (doc: DocumentBlocks): PackageManifest => ({
    schemaVersion: SCHEMA_VERSION,
    packageId: 'job_x',
    jobId: 'job_x',
    tenant: 't',
    source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1, sha256: sha },
    origin,
    text: documentText(doc),
    markdown: renderMarkdown(doc, { assetUrl }),
    body: doc.body,
    furniture: doc.furniture,
    tables: [],
    assets: [{ sha256: sha, mediaType: 'image/png', size: 3, role: 'figure', width: 2, height: 2 }],
  });

  it('accepts a package with every block type', () => {
    const doc = sample();
    numberBlocks(doc);
    doc.furniture.push({ type: 'page_footer', text: '3', origin }, { type: 'note', text: 'speaker', origin });
    doc.body.push({ type: 'caption', text: 'Table 2', origin });
    expect(() => assertValidPackage(manifest(doc))).not.toThrow();
  });

  it('refuses a block of an unknown type, a heading without a level and a bad box', () => {
    const unknown = manifest(sample());
    (unknown.body as unknown[]).push({ type: 'sidebar', text: 'x', origin });
    expect(() => assertValidPackage(unknown)).toThrow(/does not validate/);
    const noLevel = manifest({ body: [{ type: 'heading', text: 'x', origin } as never], furniture: [] });
    expect(() => assertValidPackage(noLevel)).toThrow(/does not validate/);
    const badBox = manifest({ body: [{ type: 'paragraph', text: 'x', origin, bbox: [1, 2, 3] as never }], furniture: [] });
    expect(() => assertValidPackage(badBox)).toThrow(/does not validate/);
  });
});
