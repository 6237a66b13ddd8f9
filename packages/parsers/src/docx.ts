import { readFile } from 'node:fs/promises';
import type { FigureBlock } from '@readpack/reading-package';
import { parsedDocument } from './document.js';
import { assembleBody } from './docx/assemble.js';
import { readBlocks, type FigureSink, type PartContext } from './docx/content.js';
import { readHeadersAndFooters, readNotes } from './docx/furniture.js';
import { Numbering } from './docx/numbering.js';
import { Styles } from './docx/styles.js';
import { assertOfficeOpenXml, child, OfficePackage, readerOrigin, readPictureParts, relType, type PicturePart, type Relationship } from './ooxml.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';

const MAIN_DOCUMENT = 'word/document.xml';

/**
 * DOCX read from its own XML (`word/document.xml` with styles.xml, numbering.xml, the notes,
 * headers and footers), not through mammoth: mammoth's document model drops what the blocks need
 * (outline levels of custom styles, list instances and start numbers, `w:gridBefore` in tables,
 * headers and footers), and the same OOXML reader serves PPTX.
 */
export async function parseDocx(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOfficeOpenXml(buffer, 'DOCX');
  await assertSafeOfficeZip(buffer, 'DOCX', limits);
  const pkg = await OfficePackage.open(buffer, 'DOCX');
  try {
    return await readDocx(pkg, limits);
  } finally {
    pkg.close();
  }
}

async function mainDocumentPart(pkg: OfficePackage): Promise<string> {
  const rels = await pkg.relationships('');
  const main = [...rels.values()].find((rel) => relType(rel) === 'officeDocument')?.target;
  return main ?? MAIN_DOCUMENT;
}

async function readDocx(pkg: OfficePackage, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const origin = readerOrigin();
  const main = await mainDocumentPart(pkg);
  const document = await pkg.xml(main);
  const body = child(document, 'w:body');
  if (!document || document.name !== 'w:document' || !body) {
    throw new DocumentError('corrupt_document', `not a readable DOCX file: ${main} is ${document ? `a ${document.name}, not a Word document` : 'missing'}`);
  }
  const rels = await pkg.relationships(main);
  const partOf = (type: string): string | undefined => [...rels.values()].find((rel) => relType(rel) === type)?.target;
  const load = async (type: string) => {
    const part = partOf(type);
    return part === undefined ? undefined : pkg.xml(part);
  };
  const styles = new Styles(await load('styles'));
  const numbering = new Numbering(await load('numbering'), (styleId) => styles.get(styleId)?.numId);
  const settings = await load('settings');

  const pictures: PicturePart[] = [];
  const figure: FigureSink = (target: Relationship | undefined, alt: string | undefined) => {
    const block: FigureBlock = { type: 'figure', origin };
    if (alt !== undefined) block.alt = alt;
    if (target?.target !== undefined) pictures.push({ block, part: target.target });
    return block;
  };
  const ctx: PartContext = { styles, numbering, origin, rels, figure, notes: [], limits };
  const blocks = assembleBody(readBlocks(body, ctx), origin);

  const { headers, footers } = await readHeadersAndFooters(pkg, rels, ctx);
  const footnotes = await readNotes(pkg, 'footnote', partOf('footnotes'), settings, ctx);
  const endnotes = await readNotes(pkg, 'endnote', partOf('endnotes'), settings, ctx);
  const images = await readPictureParts(pkg, pictures);
  return parsedDocument({ origin, body: blocks, furniture: [...headers, ...footnotes, ...footers, ...endnotes], images });
}
