import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FigureBlock, FlowBlock, ListBlock, TableBlock } from '@readpack/reading-package';
import { buildZip, fixturePath } from '@readpack/testing';
import { parseDocument, type ParsedDocument } from '../src/index.js';
import { blockSchemaErrors } from './block-schema.js';
import { DOCX, scratchDir } from './helpers.js';
import { zipEntries } from './zip-entries.js';

const docx = (path: string) => parseDocument({ path, mediaType: DOCX });
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

function ofType<T extends FlowBlock['type']>(doc: ParsedDocument, type: T): Extract<FlowBlock, { type: T }>[] {
  return doc.body.filter((b): b is Extract<FlowBlock, { type: T }> => b.type === type);
}

/** Every grid position of the table is covered by exactly one cell. */
function expectGridCovered(table: TableBlock): void {
  const hits = Array.from({ length: table.rows }, () => Array.from({ length: table.columns }, () => 0));
  for (const cell of table.cells) {
    for (let r = cell.row; r < cell.row + cell.rowSpan; r += 1) for (let c = cell.col; c < cell.col + cell.colSpan; c += 1) hits[r]![c]! += 1;
  }
  expect(hits.flat().every((n) => n === 1)).toBe(true);
}

/** `row,col rowSpan×colSpan text` of the cells that span or have text: a compact view to compare. */
function spans(table: TableBlock): string[] {
  return table.cells.filter((c) => c.rowSpan > 1 || c.colSpan > 1).map((c) => `${c.row},${c.col} ${c.rowSpan}x${c.colSpan} ${c.text}`);
}

function listShape(list: ListBlock): unknown {
  return list.items.map((item) => (item.children ? { [item.text]: item.children.map(listShape) } : item.text));
}

describe('DOCX blocks from the corpus', () => {
  it('word_sample.docx: Title and Heading styles, bulleted and numbered lists, the captioned picture, the table, the footer', async () => {
    const path = fixturePath('word_sample.docx');
    const doc = await docx(path);
    expect(ofType(doc, 'heading').map((h) => [h.level, h.text])).toEqual([
      [1, 'Swimming in the lake'],
      [1, 'Let’s swim!'],
      [2, 'Let’s eat'],
    ]);
    const lists = ofType(doc, 'list');
    expect(lists.map((l) => [l.ordered, l.items.map((i) => i.text)])).toEqual([
      [false, ['You can relax and look around', 'Paddle about', 'Enjoy summer warmth']],
      [true, ['Wear sunglasses', 'Don’t forget to drink water', 'Use sun cream']],
      [true, ['Leaves', 'Berries', 'Grain']],
    ]);
    expect(lists[1]?.items.map((i) => i.marker)).toEqual(['1.', '2.', '3.']);
    expect(lists[0]?.items[0]?.marker).toBe('•');

    const [figure] = ofType(doc, 'figure');
    const media = (await zipEntries(await readFile(path))).get('word/media/image1.png');
    expect(media).toBeDefined();
    expect(figure).toMatchObject({ asset: sha256(media!), caption: 'Figure 1: This is a cute duckling' });
    expect(figure?.alt).toMatch(/^A cartoon duck holding a paper/);
    expect(Buffer.from(doc.images[0]!.data).equals(media!)).toBe(true);
    // The caption moved onto the figure: no separate caption block is left.
    expect(ofType(doc, 'caption')).toEqual([]);

    const [table] = ofType(doc, 'table');
    expect(table).toMatchObject({ rows: 4, columns: 3, headerRows: 0 });
    expectGridCovered(table!);
    // The footer holds only a PAGE field: a page number of Word's last layout, not text.
    expect(doc.furniture.filter((f) => f.type === 'page_footer')).toEqual([]);
    expect(doc.body.every((b) => b.origin.engine === 'native' && b.page === undefined)).toBe(true);
  });

  it('word_tables.docx: gridSpan, vMerge and rows starting late land on their grid positions', async () => {
    const doc = await docx(fixturePath('word_tables.docx'));
    const tables = ofType(doc, 'table');
    expect(tables).toHaveLength(7);
    tables.forEach(expectGridCovered);
    expect(tables.map((t) => [t.rows, t.columns])).toEqual([[3, 3], [3, 3], [3, 4], [5, 3], [9, 5], [2, 2], [2, 3]]);
    expect(spans(tables[0]!)).toEqual([]);
    expect(spans(tables[1]!)).toEqual(['1,1 1x2 Merged Cell 1.1 1.2', '2,1 1x2 Merged Cell 2.1 2.2']);
    expect(spans(tables[2]!)).toEqual(['1,1 1x2 Merged Cell 1.1 1.2', '2,1 1x2 Merged Cell 2.1 2.2']);
    expect(spans(tables[3]!)).toEqual(['1,1 2x1 Merged Cell 1.1 2.1', '3,1 2x1 Merged Cell 3.1 4.1']);
    // vMerge restarts at (3,3) over three rows and at (4,4) over two; row 7 is one gridSpan=5 cell.
    expect(spans(tables[4]!)).toEqual(['1,1 2x1 Merged Cell 1.1 2.1', '3,1 2x1 Merged Cell 3.1 4.1', '3,3 3x1 ', '4,4 2x1 Merged Cell 4.4 5.4', '7,0 1x5 ']);
    // w:gridBefore: the second row starts in column 1, leaving (1,0) to an empty cell.
    expect(tables[5]!.cells.find((c) => c.text === 'Cell 1.1')).toMatchObject({ row: 1, col: 1 });
    // The vertical merge continues in a row that starts two columns late: it stays in column 2.
    expect(spans(tables[6]!)).toEqual(['0,2 2x1 Merged Cell 0.2 1.2']);
    expect(tables[6]!.cells.find((c) => c.text === 'Header 0.0')).toMatchObject({ rowSpan: 1, colSpan: 1 });
  });

  it('markitdown-test.docx: headings by style name whatever the style id, the picture with its alt text', async () => {
    const path = fixturePath('markitdown-test.docx');
    const doc = await docx(path);
    const headings = ofType(doc, 'heading');
    expect(headings[0]).toMatchObject({ level: 1, text: 'AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation' });
    expect(headings.map((h) => h.level)).toEqual([1, 1, 1, 2]);
    const [figure] = ofType(doc, 'figure');
    const media = (await zipEntries(await readFile(path))).get('word/media/image1.png');
    expect(figure?.asset).toBe(sha256(media!));
    expect(figure?.alt).toMatch(/^图形用户界面/);
    expect(ofType(doc, 'table')[0]).toMatchObject({ rows: 5, columns: 6 });
  });

  it('every corpus DOCX gives blocks that validate against the reading-package schema', async () => {
    for (const name of ['word_sample.docx', 'word_tables.docx', 'markitdown-test.docx', 'footnotes.docx']) {
      expect({ name, errors: blockSchemaErrors(await docx(fixturePath(name))) }).toEqual({ name, errors: [] });
    }
  });

  it('footnotes.docx: notes as labelled footnote furniture, markers out of the body', async () => {
    const doc = await docx(fixturePath('footnotes.docx'));
    expect(doc.body).toEqual([expect.objectContaining({ type: 'paragraph', text: 'Ouch.' })]);
    expect(doc.furniture.map((f) => [f.type, 'label' in f ? f.label : undefined, f.text])).toEqual([
      ['footnote', '1', 'A tachyon walks into a bar.'],
      ['footnote', '2', 'Fin.'],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// A DOCX written by hand, for what the corpus lacks: headers and footers, table captions,
// nested lists, outline levels of custom styles, code, endnotes, w:tblHeader.

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const PIC = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
const NS = `xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="${WP}" xmlns:a="${A}" xmlns:pic="${PIC}"`;
const DOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const run = (text: string, rPr = '') => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ''}<w:t xml:space="preserve">${text}</w:t></w:r>`;
const para = (text: string, pPr = '', extra = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${run(text)}${extra}</w:p>`;
const styled = (style: string, text: string) => para(text, `<w:pStyle w:val="${style}"/>`);
const item = (numId: number, ilvl: number, text: string) => para(text, `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);
const cell = (text: string, tcPr = '') => `<w:tc>${tcPr ? `<w:tcPr>${tcPr}</w:tcPr>` : ''}${para(text)}</w:tc>`;
const picture = (descr: string) =>
  `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="9525" cy="9525"/><wp:docPr id="1" name="Picture 1" descr="${descr}"/><a:graphic><a:graphicData uri="${PIC}"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="dot.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImg"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;

function handWrittenDocx(): Buffer {
  const body = [
    styled('Title', 'Field guide'),
    styled('MyHeading', 'Custom outline level two'),
    styled('MySub', 'Inherits the outline level'),
    para('Ducks', '', `<w:r><w:footnoteReference w:id="1"/></w:r>${run(' and geese')}<w:r><w:endnoteReference w:id="1"/></w:r>`),
    item(1, 0, 'One'),
    item(1, 1, 'One a'),
    item(1, 2, 'Deep bullet'),
    item(1, 1, 'One b'),
    item(1, 0, 'Two'),
    item(2, 0, 'Five'),
    styled('Caption', 'Table 1: Sightings'),
    `<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/><w:gridCol/></w:tblGrid>`,
    `<w:tr><w:trPr><w:tblHeader/></w:trPr>${cell('Bird')}${cell('Count', '<w:gridSpan w:val="2"/>')}</w:tr>`,
    `<w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr>${cell('12')}${cell('13')}</w:tr>`,
    `</w:tbl>`,
    picture('A small dot'),
    styled('Caption', 'Figure 1: The dot'),
    styled('Code', 'const a = 1;'),
    styled('Code', 'const b = 2;'),
    `<w:p>${run('mono()', '<w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/>')}</w:p>`,
    para('The end'),
    `<w:sectPr><w:headerReference w:type="default" r:id="rIdH"/><w:footerReference w:type="default" r:id="rIdF"/></w:sectPr>`,
  ].join('');
  const style = (id: string, name: string, inner = '') => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/>${inner}</w:style>`;
  const styles = `<?xml version="1.0" encoding="UTF-8"?><w:styles ${NS}>${[
    style('Title', 'Title'),
    style('MyHeading', 'My Heading', '<w:pPr><w:outlineLvl w:val="1"/></w:pPr>'),
    style('MySub', 'My Sub', '<w:basedOn w:val="MyHeading"/>'),
    style('Caption', 'caption'),
    style('Code', 'Code'),
  ].join('')}</w:styles>`;
  const lvl = (ilvl: number, fmt: string, text: string) => `<w:lvl w:ilvl="${ilvl}"><w:start w:val="1"/><w:numFmt w:val="${fmt}"/><w:lvlText w:val="${text}"/></w:lvl>`;
  const numbering = `<?xml version="1.0" encoding="UTF-8"?><w:numbering ${NS}><w:abstractNum w:abstractNumId="0">${lvl(0, 'decimal', '%1.')}${lvl(1, 'lowerLetter', '%2)')}${lvl(2, 'bullet', '\uf0b7')}</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num></w:numbering>`;
  const notes = (kind: 'footnote' | 'endnote', text: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><w:${kind}s ${NS}><w:${kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:${kind}><w:${kind} w:id="1"><w:p><w:r><w:${kind}Ref/></w:r>${run(` ${text}`)}</w:p></w:${kind}></w:${kind}s>`;
  const rel = (id: string, type: string, target: string) => `<Relationship Id="${id}" Type="${R}/${type}" Target="${target}"/>`;
  const rels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${[
    rel('rIdS', 'styles', 'styles.xml'),
    rel('rIdN', 'numbering', 'numbering.xml'),
    rel('rIdFn', 'footnotes', 'footnotes.xml'),
    rel('rIdEn', 'endnotes', 'endnotes.xml'),
    rel('rIdH', 'header', 'header1.xml'),
    rel('rIdF', 'footer', 'footer1.xml'),
    rel('rIdImg', 'image', 'media/dot.png'),
  ].join('')}</Relationships>`;
  return buildZip([
    { name: '[Content_Types].xml', data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>` },
    { name: '_rels/.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'word/document.xml')}</Relationships>` },
    { name: 'word/document.xml', data: `<?xml version="1.0" encoding="UTF-8"?><w:document ${NS}><w:body>${body}</w:body></w:document>` },
    { name: 'word/_rels/document.xml.rels', data: rels },
    { name: 'word/styles.xml', data: styles },
    { name: 'word/numbering.xml', data: numbering },
    { name: 'word/footnotes.xml', data: notes('footnote', 'Anatidae.') },
    { name: 'word/endnotes.xml', data: notes('endnote', 'Counted in 2024.') },
    { name: 'word/header1.xml', data: `<?xml version="1.0" encoding="UTF-8"?><w:hdr ${NS}>${para('Field guide — draft')}</w:hdr>` },
    { name: 'word/footer1.xml', data: `<?xml version="1.0" encoding="UTF-8"?><w:ftr ${NS}>${para('Confidential')}<w:p><w:fldSimple w:instr=" PAGE ">${run('3')}</w:fldSimple></w:p></w:ftr>` },
    { name: 'word/media/dot.png', data: DOT_PNG, method: 0 },
  ]);
}

describe('DOCX text as Word shows it', () => {
  it('keeps insertions, hyperlinks, content controls, field results and text boxes; drops deletions and field codes', async () => {
    const scratch = await scratchDir();
    try {
      const body = [
        `<w:p>${run('Kept ')}<w:ins w:id="1" w:author="a">${run('inserted ')}</w:ins><w:del w:id="2" w:author="a"><w:r><w:delText>deleted </w:delText></w:r></w:del><w:hyperlink r:id="rIdX">${run('linked')}</w:hyperlink></w:p>`,
        `<w:sdt><w:sdtPr><w:alias w:val="Box"/></w:sdtPr><w:sdtContent>${para('Inside a content control')}</w:sdtContent></w:sdt>`,
        `<w:p>${run('See ')}<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> REF _Ref1 \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run('Table 2')}<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
        // A page number is Word's layout, not the document's text.
        `<w:p>${run('Page ')}<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run('7')}<w:r><w:fldChar w:fldCharType="end"/></w:r>${run('of ')}<w:fldSimple w:instr=" NUMPAGES ">${run('9')}</w:fldSimple></w:p>`,
        `<w:p>${run('Anchor')}<w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="3" name="Text Box 3"/><a:graphic><a:graphicData><wps:wsp xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:txbx><w:txbxContent>${para('In the text box')}</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>${para('In the text box')}</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`,
      ].join('');
      const data = buildZip([
        { name: '_rels/.rels', data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>` },
        { name: 'word/document.xml', data: `<?xml version="1.0"?><w:document ${NS}><w:body>${body}</w:body></w:document>` },
        { name: 'word/_rels/document.xml.rels', data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdX" Type="${R}/hyperlink" Target="https://example.org/" TargetMode="External"/></Relationships>` },
      ]);
      const doc = await docx(await scratch.file('shown.docx', data));
      expect(doc.body.map((b) => ('text' in b ? b.text : b.type))).toEqual(['Kept inserted linked', 'Inside a content control', 'See Table 2', 'Page of', 'Anchor', 'In the text box']);
    } finally {
      await scratch.cleanup();
    }
  });
});

describe('DOCX namespaces', () => {
  it('reads WordprocessingML under any prefix, or none, and in its Strict OOXML namespace', async () => {
    const scratch = await scratchDir();
    try {
      const rels = `<?xml version="1.0"?><pr:Relationships xmlns:pr="http://schemas.openxmlformats.org/package/2006/relationships"><pr:Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></pr:Relationships>`;
      const variants = [
        `<ns0:document xmlns:ns0="${W}"><ns0:body><ns0:p><ns0:pPr><ns0:pStyle ns0:val="Heading2"/></ns0:pPr><ns0:r><ns0:t>Prefixed</ns0:t></ns0:r></ns0:p></ns0:body></ns0:document>`,
        `<document xmlns="${W}"><body><p><pPr><pStyle xmlns:x="${W}" x:val="Heading2"/></pPr><r><t>Prefixed</t></r></p></body></document>`,
        `<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body><w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Prefixed</w:t></w:r></w:p></w:body></w:document>`,
      ];
      for (const [i, document] of variants.entries()) {
        const data = buildZip([
          { name: '_rels/.rels', data: rels },
          { name: 'word/document.xml', data: `<?xml version="1.0"?>${document}` },
        ]);
        const doc = await docx(await scratch.file(`ns-${i}.docx`, data));
        expect({ variant: i, body: doc.body }).toEqual({ variant: i, body: [expect.objectContaining({ type: 'heading', level: 2, text: 'Prefixed' })] });
      }
    } finally {
      await scratch.cleanup();
    }
  });
});

describe('DOCX blocks from a hand-written package', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  let doc: ParsedDocument;
  beforeAll(async () => {
    scratch = await scratchDir();
    doc = await docx(await scratch.file('guide.docx', handWrittenDocx()));
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('reads Title as level 1 and custom styles by their (inherited) outline level', () => {
    expect(ofType(doc, 'heading').map((h) => [h.level, h.text])).toEqual([
      [1, 'Field guide'],
      [2, 'Custom outline level two'],
      [2, 'Inherits the outline level'],
    ]);
  });

  it('nests list levels, keeps markers as Word numbers them, and starts an overridden list at its number', () => {
    const lists = ofType(doc, 'list');
    expect(lists).toHaveLength(2);
    expect(listShape(lists[0]!)).toEqual([{ One: [[{ 'One a': [['Deep bullet']] }, 'One b']] }, 'Two']);
    const one = lists[0]!.items[0]!;
    expect(one.marker).toBe('1.');
    expect(one.children?.[0]).toMatchObject({ ordered: true, items: [{ marker: 'a)' }, { marker: 'b)' }] });
    expect(one.children?.[0]?.items[0]?.children?.[0]).toMatchObject({ ordered: false, items: [{ text: 'Deep bullet', marker: '•' }] });
    expect(lists[0]!.items[1]?.marker).toBe('2.');
    expect(lists[1]).toMatchObject({ ordered: true, start: 5, items: [{ text: 'Five', marker: '5.' }] });
  });

  it('puts a caption on the table it precedes and on the figure it follows, with the picture bytes as the asset', () => {
    const [table] = ofType(doc, 'table');
    expect(table).toMatchObject({ caption: 'Table 1: Sightings', rows: 2, columns: 3, headerRows: 1 });
    expect(table!.cells).toEqual([
      { row: 0, col: 0, rowSpan: 1, colSpan: 1, text: 'Bird', header: true },
      { row: 0, col: 1, rowSpan: 1, colSpan: 2, text: 'Count', header: true },
      { row: 1, col: 0, rowSpan: 1, colSpan: 1, text: '' },
      { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: '12' },
      { row: 1, col: 2, rowSpan: 1, colSpan: 1, text: '13' },
    ]);
    const figure: FigureBlock | undefined = ofType(doc, 'figure')[0];
    expect(figure).toMatchObject({ alt: 'A small dot', caption: 'Figure 1: The dot', asset: sha256(DOT_PNG) });
    expect(doc.images).toHaveLength(1);
    expect(Buffer.from(doc.images[0]!.data).equals(DOT_PNG)).toBe(true);
    expect(ofType(doc, 'caption')).toEqual([]);
  });

  it('joins consecutive Code paragraphs into one code block, and reads a paragraph all in Courier as code', () => {
    expect(ofType(doc, 'code').map((c) => c.text)).toEqual(['const a = 1;\nconst b = 2;\nmono()']);
    expect(ofType(doc, 'paragraph').map((p) => p.text)).toEqual(['Ducks and geese', 'The end']);
  });

  it('gives blocks that validate against the reading-package schema', () => {
    expect(blockSchemaErrors(doc)).toEqual([]);
  });

  it('keeps headers, footers, footnotes and endnotes as furniture, with Word’s labels', () => {
    expect(doc.furniture.map((f) => [f.type, 'label' in f ? f.label : undefined, f.text])).toEqual([
      ['page_header', undefined, 'Field guide — draft'],
      ['footnote', '1', 'Anatidae.'],
      ['page_footer', undefined, 'Confidential'],
      ['footnote', 'i', 'Counted in 2024.'],
    ]);
    expect(doc.text).not.toContain('Confidential');
    expect(doc.text).toContain('Anatidae.');
  });
});
