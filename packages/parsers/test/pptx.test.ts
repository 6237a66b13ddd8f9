import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FlowBlock, ListBlock } from '@readpack/reading-package';
import { BILLION_LAUGHS, fixturePath } from '@readpack/testing';
import pptxgenjs from 'pptxgenjs';
import { parseDocument, PPTX_MEDIA_TYPE, SUPPORTED_MEDIA_TYPES, type ParseOptions, type ParsedDocument } from '../src/index.js';
import { blockSchemaErrors } from './block-schema.js';
import { rejectionCode, scratchDir } from './helpers.js';
import { rezip, zipEntries } from './zip-entries.js';

/** pptxgenjs runs as ESM (its default export is the class) but types itself as CommonJS, where the class is `.default`. */
const PptxGenJS = pptxgenjs as unknown as typeof pptxgenjs.default;

const DOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const MiB = 1024 * 1024;

/**
 * A three-slide deck written by pptxgenjs: a title slide with a body placeholder, nested bullets
 * and numbers and two text boxes side by side (the right one added first); a table with merged
 * cells and a picture with alt text; and a slide whose text box later goes into a group.
 */
async function deck(): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_16x9';
  pptx.defineSlideMaster({
    title: 'TITLED',
    objects: [
      { placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.3, w: 9, h: 0.8 }, text: '' } },
      { placeholder: { options: { name: 'sub', type: 'body', x: 0.5, y: 1.2, w: 9, h: 0.5 }, text: '' } },
    ],
  });
  const first = pptx.addSlide({ masterName: 'TITLED' });
  first.addText('Quarterly review', { placeholder: 'title' });
  first.addText('Numbers and plans', { placeholder: 'sub' });
  first.addText('Right column', { x: 5, y: 2, w: 4, h: 1 });
  first.addText(
    [
      { text: 'First point', options: { bullet: true } },
      { text: 'Detail A', options: { bullet: true, indentLevel: 1 } },
      { text: 'Step one', options: { bullet: { type: 'number' }, indentLevel: 2 } },
      { text: 'Step two', options: { bullet: { type: 'number' }, indentLevel: 2 } },
      { text: 'Second point', options: { bullet: true } },
    ],
    { x: 0.5, y: 2, w: 4, h: 2 },
  );
  first.addText('Closing remark', { x: 0.5, y: 4.5, w: 9, h: 0.5 });
  first.addNotes('Remember to smile.');
  const second = pptx.addSlide();
  second.addTable(
    [
      [{ text: 'Region' }, { text: 'Q1' }, { text: 'Q2' }],
      [{ text: 'North', options: { rowspan: 2 } }, { text: 'Merged Q1-Q2', options: { colspan: 2 } }],
      [{ text: '10' }, { text: '20' }],
    ],
    { x: 0.5, y: 0.5, w: 6 },
  );
  second.addImage({ data: `image/png;base64,${DOT_PNG.toString('base64')}`, x: 1, y: 3, w: 1, h: 1, altText: 'A red dot' });
  second.addNotes('Table first, then the dot.');
  const third = pptx.addSlide();
  third.addText('Grouped', { x: 1, y: 1, w: 1, h: 0.5 });
  return Buffer.from((await pptx.write({ outputType: 'nodebuffer' })) as Uint8Array);
}

/**
 * The deck as PowerPoint would have it after hand edits pptxgenjs cannot make: the body
 * placeholder becomes a subtitle, the table gets a header row and its slide a footer, the third
 * slide's text box is put in a group that doubles its child space and moves it one inch right,
 * and a SmartArt diagram joins it.
 */
async function editedDeck(data: Buffer): Promise<Buffer> {
  const group = (shape: string) =>
    `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="10" name="Group 1"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="914400" y="0"/><a:ext cx="1828800" cy="914400"/><a:chOff x="0" y="0"/><a:chExt cx="914400" cy="457200"/></a:xfrm></p:grpSpPr>${shape}</p:grpSp>`;
  const diagram =
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="11" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="914400" y="2743200"/><a:ext cx="4572000" cy="914400"/></p:xfrm>' +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rIdDm" r:lo="rIdLo" r:qs="rIdQs" r:cs="rIdCs"/></a:graphicData></a:graphic></p:graphicFrame>';
  const point = (id: string, text: string, type = '') =>
    `<dgm:pt modelId="${id}"${type ? ` type="${type}"` : ''}><dgm:t><a:bodyPr/><a:p>${text ? `<a:r><a:t>${text}</a:t></a:r>` : ''}</a:p></dgm:t></dgm:pt>`;
  const cxn = (src: string, dest: string, order: number, type = '') => `<dgm:cxn modelId="c${src}-${dest}"${type ? ` type="${type}"` : ''} srcId="${src}" destId="${dest}" srcOrd="${order}" destOrd="0"/>`;
  // SmartArt as PowerPoint stores it: points, and parent-of connections that order and nest them.
  const dataModel =
    `<?xml version="1.0" encoding="UTF-8"?><dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>` +
    `${point('0', '', 'doc')}${point('1', 'Plan')}${point('2', 'Build')}${point('3', 'Test units')}${point('4', '', 'parTrans')}${point('5', 'Label shape', 'pres')}</dgm:ptLst>` +
    `<dgm:cxnLst>${cxn('0', '2', 1)}${cxn('0', '1', 0)}${cxn('2', '3', 0)}${cxn('1', '5', 0, 'presOf')}</dgm:cxnLst></dgm:dataModel>`;
  const footer =
    '<p:sp><p:nvSpPr><p:cNvPr id="20" name="Footer"/><p:cNvSpPr/><p:nvPr><p:ph type="ftr" sz="quarter" idx="11"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="457200" y="4754880"/><a:ext cx="4572000" cy="274320"/></a:xfrm></p:spPr>' +
    '<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>ACME confidential</a:t></a:r></a:p></p:txBody></p:sp>';
  return rezip(data, {
    'ppt/slides/slide1.xml': (xml) => xml.replace(/type="body"/, 'type="subTitle"'),
    // The table gets PowerPoint's "Header Row" option, the slide a footer placeholder.
    'ppt/slides/slide2.xml': (xml) => xml.replace('<a:tblPr/>', '<a:tblPr firstRow="1"/>').replace('</p:spTree>', `${footer}</p:spTree>`),
    'ppt/slides/slide3.xml': (xml) => xml.replace(/<p:sp>[\s\S]*<\/p:sp>/, (shape) => group(shape) + diagram),
    'ppt/slides/_rels/slide3.xml.rels': (xml) =>
      xml.replace('</Relationships>', '<Relationship Id="rIdDm" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData" Target="../diagrams/data1.xml"/></Relationships>'),
    'ppt/diagrams/data1.xml': dataModel,
  });
}

function ofType<T extends FlowBlock['type']>(blocks: FlowBlock[], type: T): Extract<FlowBlock, { type: T }>[] {
  return blocks.filter((b): b is Extract<FlowBlock, { type: T }> => b.type === type);
}

function listShape(list: ListBlock): unknown {
  return list.items.map((item) => (item.children ? { [item.text]: item.children.map(listShape) } : item.text));
}

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let counter = 0;
async function parse(data: Uint8Array, options: ParseOptions = {}, mediaType = PPTX_MEDIA_TYPE): Promise<ParsedDocument> {
  counter += 1;
  return parseDocument({ path: await scratch.file(`deck-${counter}.pptx`, data), mediaType }, options);
}

beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.cleanup();
});

describe('PPTX', () => {
  let original: Buffer;
  let doc: ParsedDocument;
  beforeAll(async () => {
    original = await editedDeck(await deck());
    doc = await parse(original);
  });

  it('is a supported media type', () => {
    expect(SUPPORTED_MEDIA_TYPES).toContain(PPTX_MEDIA_TYPE);
  });

  it('makes each slide a page of the slide size in points (16:9 = 10 × 5.625 in)', () => {
    expect(doc.pages?.map((p) => [p.index, p.width, p.height])).toEqual([
      [0, 720, 405],
      [1, 720, 405],
      [2, 720, 405],
    ]);
    expect(doc.pages?.[0]?.text).toContain('Quarterly review');
    expect(doc.body.every((b) => b.page !== undefined && b.origin.engine === 'native')).toBe(true);
  });

  it('reads a slide title first, then its shapes top to bottom and left to right', () => {
    const slide = doc.body.filter((b) => b.page === 0);
    expect(slide.map((b) => b.type)).toEqual(['heading', 'heading', 'list', 'paragraph', 'paragraph']);
    expect(slide[0]).toMatchObject({ type: 'heading', level: 1, text: 'Quarterly review', bbox: [36, 21.6, 684, 79.2] });
    expect(slide[1]).toMatchObject({ type: 'heading', level: 2, text: 'Numbers and plans' });
    // The right column was added first but sits right of the list: it is read after it.
    expect(ofType(slide, 'paragraph').map((p) => p.text)).toEqual(['Right column', 'Closing remark']);
    expect(slide[2]?.bbox).toEqual([36, 144, 324, 288]);
  });

  it('nests bullet paragraphs by level, numbered ones with their numbers', () => {
    const [list] = ofType(doc.body, 'list');
    expect(list).toMatchObject({ ordered: false, page: 0 });
    expect(listShape(list!)).toEqual([{ 'First point': [[{ 'Detail A': [['Step one', 'Step two']] }]] }, 'Second point']);
    const steps = list!.items[0]!.children![0]!.items[0]!.children![0]!;
    expect(steps).toMatchObject({ ordered: true, items: [{ marker: '1.' }, { marker: '2.' }] });
    expect(list!.items[0]!.marker).toBe('•');
  });

  it('reads a table with merged cells (rowSpan, gridSpan; hMerge and vMerge positions covered)', () => {
    const [table] = ofType(doc.body, 'table');
    expect(table).toMatchObject({ page: 1, rows: 3, columns: 3, headerRows: 1, bbox: [36, 36, 468, expect.any(Number)] });
    expect(table!.cells.filter((c) => c.header).map((c) => c.text)).toEqual(['Region', 'Q1', 'Q2']);
    expect(table!.cells.map((c) => `${c.row},${c.col} ${c.rowSpan}x${c.colSpan} ${c.text}`)).toEqual([
      '0,0 1x1 Region',
      '0,1 1x1 Q1',
      '0,2 1x1 Q2',
      '1,0 2x1 North',
      '1,1 1x2 Merged Q1-Q2',
      '2,1 1x1 10',
      '2,2 1x1 20',
    ]);
  });

  it('makes a picture a figure with its alt text, its asset the bytes of its ppt/media part', async () => {
    const media = [...(await zipEntries(original))].filter(([name]) => name.startsWith('ppt/media/') && !name.endsWith('/'));
    expect(media).toHaveLength(1);
    const bytes = media[0]![1];
    expect(bytes.equals(DOT_PNG)).toBe(true);
    const [figure] = ofType(doc.body, 'figure');
    expect(figure).toEqual(expect.objectContaining({ page: 1, alt: 'A red dot', asset: sha256(bytes), bbox: [72, 216, 144, 288] }));
    expect(doc.images).toHaveLength(1);
    expect(doc.images[0]).toMatchObject({ mediaType: 'image/png', page: 1, sha256: sha256(bytes) });
  });

  it('maps a grouped shape through the group transform', () => {
    const grouped = doc.body.find((b) => b.page === 2);
    // Child frame (1 in, 1 in, 1 × 0.5 in), child space scaled ×2 and moved 1 in right.
    expect(grouped).toMatchObject({ type: 'paragraph', text: 'Grouped', bbox: [216, 144, 360, 216] });
  });

  it('reads SmartArt as a list nested the way its connections nest the nodes', () => {
    const [diagram] = ofType(doc.body.filter((b) => b.page === 2), 'list');
    expect(diagram).toMatchObject({ ordered: false, bbox: [72, 216, 432, 288] });
    expect(listShape(diagram!)).toEqual(['Plan', { Build: [['Test units']] }]);
  });

  it('gives blocks that validate against the reading-package schema', () => {
    expect(blockSchemaErrors(doc)).toEqual([]);
  });

  it('keeps speaker notes as note furniture on their slide, and a footer placeholder as a page footer', () => {
    expect(doc.furniture.map((f) => [f.type, f.page, f.text])).toEqual([
      ['note', 0, 'Remember to smile.'],
      ['page_footer', 1, 'ACME confidential'],
      ['note', 1, 'Table first, then the dot.'],
    ]);
    expect(doc.text).not.toContain('Remember to smile.');
    expect(doc.text).not.toContain('ACME confidential');
  });

  it('gives a placeholder without a position or bullets of its own those of its layout and master', async () => {
    // As PowerPoint writes a content placeholder: no a:xfrm and no bullets of its own. The
    // layout's list style turns bullets off at level 1; levels 2 and 3 keep the master's.
    const body =
      '<p:sp><p:nvSpPr><p:cNvPr id="6" name="Content"/><p:cNvSpPr/><p:nvPr><p:ph type="body" idx="101"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>' +
      '<a:p><a:r><a:t>Plain by the layout</a:t></a:r></a:p><a:p><a:pPr lvl="1"/><a:r><a:t>Dash from the master</a:t></a:r></a:p><a:p><a:pPr lvl="2"/><a:r><a:t>Dot from the master</a:t></a:r></a:p></p:txBody></p:sp>';
    const plain = await rezip(await deck(), {
      'ppt/slides/slide1.xml': (xml) => xml.replace(/<p:sp>(?:(?!<p:sp>)[\s\S])*?idx="101"[\s\S]*?<\/p:sp>/, body),
    });
    const slide = (await parse(plain)).body.filter((b) => b.page === 0);
    expect(slide.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'list', 'paragraph', 'paragraph']);
    const layoutFrame: [number, number, number, number] = [36, 86.4, 684, 122.4];
    expect(slide[1]).toMatchObject({ text: 'Plain by the layout', bbox: layoutFrame });
    expect(slide[2]).toMatchObject({ bbox: layoutFrame, items: [{ text: 'Dash from the master', marker: '–', children: [{ items: [{ text: 'Dot from the master', marker: '•' }] }] }] });
  });

  it('follows the presentation order of p:sldIdLst, not the slide file names', async () => {
    const swapped = await rezip(original, {
      'ppt/presentation.xml': (xml) => xml.replace(/(<p:sldId [^>]*\/>)(<p:sldId [^>]*\/>)/, '$2$1'),
    });
    const reordered = await parse(swapped);
    expect(reordered.body.find((b) => b.page === 0)?.type).toBe('table');
    expect(reordered.body.find((b) => b.page === 1)).toMatchObject({ type: 'heading', text: 'Quarterly review' });
    expect(reordered.furniture.map((f) => [f.page, f.text])).toEqual([
      [0, 'ACME confidential'],
      [0, 'Table first, then the dot.'],
      [1, 'Remember to smile.'],
    ]);
  });
});

describe('PPTX guards', () => {
  let data: Buffer;
  beforeAll(async () => {
    data = await deck();
  });

  it('refuses a zip bomb before reading any slide', async () => {
    const bomb = await rezip(data, { 'ppt/media/zeros.bin': Buffer.alloc(64 * MiB) });
    expect(await rejectionCode(parse(bomb))).toBe('archive_too_large');
    expect(await rejectionCode(parse(data, { maxZipEntries: 5 }))).toBe('archive_too_large');
  });

  it('refuses a DTD (billion laughs, external entities) in any part', async () => {
    const laughs = await rezip(data, { 'ppt/slides/slide1.xml': (xml) => xml.replace('?>', `?>${BILLION_LAUGHS}`).replace('Quarterly review', '&lol9;') });
    expect(await rejectionCode(parse(laughs))).toBe('unsupported_content');
    const xxe = await rezip(data, { 'ppt/notesSlides/notesSlide1.xml': (xml) => xml.replace('?>', '?><!doctype n [<!ENTITY x SYSTEM "file:///etc/passwd">]>') });
    expect(await rejectionCode(parse(xxe))).toBe('unsupported_content');
  });

  it('leaves an entity reference unexpanded even without a DTD', async () => {
    const entity = await rezip(data, { 'ppt/slides/slide3.xml': (xml) => xml.replace('Grouped', 'A &amp; B &lol; &#x41;') });
    const doc = await parse(entity);
    expect(doc.body.find((b) => b.page === 2)).toMatchObject({ text: 'A & B &lol; A' });
  });

  it('meets damaged and nonsensical XML with a result or a DocumentError, never anything else', async () => {
    const outcomes = new Set<string>();
    const slide = (await zipEntries(data)).get('ppt/slides/slide2.xml')!.toString('utf8');
    const variants: Record<string, string>[] = [];
    for (let cut = 100; cut < slide.length; cut += Math.ceil(slide.length / 12)) variants.push({ 'ppt/slides/slide2.xml': slide.slice(0, cut) });
    for (const [pattern, value] of [
      [/gridSpan="\d+"/, 'gridSpan="99999999"'],
      [/rowSpan="\d+"/, 'rowSpan="-4"'],
      [/<a:off x="\d+"/, '<a:off x="abc"'],
      [/r:embed="rId\d+"/, 'r:embed="rId404"'],
      [/<a:tr /, '<a:tr><a:tc/></a:tr><a:tr '],
    ] as const) {
      variants.push({ 'ppt/slides/slide2.xml': slide.replace(pattern, value) });
    }
    variants.push({ 'ppt/_rels/presentation.xml.rels': '<Relationships/>' }, { 'ppt/presentation.xml': '<p:presentation xmlns:p="p"/>' }, { '_rels/.rels': '' });
    for (const change of variants) outcomes.add(await rejectionCode(parse(await rezip(data, change))));
    for (const outcome of outcomes) expect(['resolved', 'corrupt_document', 'unsupported_content']).toContain(outcome);
  });

  it('reports too_many_pages past maxPages, corrupt_document for what is no presentation, encrypted_document for a protected file', async () => {
    expect(await rejectionCode(parse(data, { maxPages: 2 }))).toBe('too_many_pages');
    expect(await rejectionCode(parse(new Uint8Array(2048).map((_, i) => (i * 31 + 7) % 251)))).toBe('corrupt_document');
    expect(await rejectionCode(parse(new Uint8Array(0)))).toBe('corrupt_document');
    const { readFile } = await import('node:fs/promises');
    expect(await rejectionCode(parse(await readFile(fixturePath('word_sample.docx'))))).toBe('corrupt_document');
    const broken = await rezip(data, { 'ppt/slides/slide2.xml': '<p:sld><p:cSld>' });
    expect(await rejectionCode(parse(broken))).toBe('corrupt_document');
    const ole2 = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Uint8Array(504), ...Buffer.from('EncryptionInfo', 'utf16le')]);
    expect(await rejectionCode(parse(ole2))).toBe('encrypted_document');
  });
});
