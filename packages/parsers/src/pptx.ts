import { readFile } from 'node:fs/promises';
import type { FlowBlock, FurnitureBlock } from '@readpack/reading-package';
import { parsedDocument, type PageFrame } from './document.js';
import { assertOfficeOpenXml, child, childrenNamed, intAttr, OfficePackage, readerOrigin, readPictureParts, relType, type PicturePart, type Relationship } from './ooxml.js';
import { emuToPoints } from './pptx/geometry.js';
import { Inheritance } from './pptx/placeholders.js';
import { readNotes, readSlide } from './pptx/slide.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';

/** PowerPoint's default slide size (4:3, 10 × 7.5 in) when `p:sldSz` is missing. */
const DEFAULT_SLIDE_SIZE = { cx: 9144000, cy: 6858000 };

/**
 * PPTX read from its XML: slides in presentation order (`p:sldIdLst`), each a page of the
 * slide's size, with its title, text frames, tables and pictures in reading order and its
 * speaker notes as furniture. The same guards as DOCX apply before any part is inflated.
 */
export async function parsePptx(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOfficeOpenXml(buffer, 'PPTX');
  await assertSafeOfficeZip(buffer, 'PPTX', limits);
  const pkg = await OfficePackage.open(buffer, 'PPTX');
  try {
    return await readPresentation(pkg, limits);
  } finally {
    pkg.close();
  }
}

function firstOfType(rels: Map<string, Relationship>, type: string): string | undefined {
  return [...rels.values()].find((rel) => relType(rel) === type)?.target;
}

async function readPresentation(pkg: OfficePackage, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const origin = readerOrigin();
  const main = firstOfType(await pkg.relationships(''), 'officeDocument') ?? 'ppt/presentation.xml';
  const presentation = await pkg.xml(main);
  if (!presentation || presentation.name !== 'p:presentation') {
    throw new DocumentError('corrupt_document', `not a readable PPTX file: ${main} is ${presentation ? `a ${presentation.name}, not a presentation` : 'missing'}`);
  }
  const rels = await pkg.relationships(main);
  const size = child(presentation, 'p:sldSz');
  const width = emuToPoints(intAttr(size?.attrs.cx) ?? DEFAULT_SLIDE_SIZE.cx);
  const height = emuToPoints(intAttr(size?.attrs.cy) ?? DEFAULT_SLIDE_SIZE.cy);
  const slideParts = childrenNamed(child(presentation, 'p:sldIdLst'), 'p:sldId')
    .map((sldId) => rels.get(sldId.attrs['r:id'] ?? '')?.target)
    .filter((part): part is string => part !== undefined && pkg.has(part));
  if (slideParts.length > limits.maxPages) {
    throw new DocumentError('too_many_pages', `the presentation has ${slideParts.length} slides, more than the limit of ${limits.maxPages}`);
  }

  const body: FlowBlock[] = [];
  const furniture: FurnitureBlock[] = [];
  const pages: PageFrame[] = [];
  const pictures: PicturePart[] = [];
  const layouts = new Map<string, Inheritance>();
  for (const [page, part] of slideParts.entries()) {
    pages.push({ index: page, width, height });
    const root = await pkg.xml(part);
    if (!root) continue;
    const slideRels = await pkg.relationships(part);
    const inheritance = await inheritanceOf(pkg, firstOfType(slideRels, 'slideLayout'), layouts);
    const slide = await readSlide(root, { pkg, origin, page, rels: slideRels, inheritance, limits }, pictures);
    body.push(...slide.body);
    furniture.push(...slide.furniture);
    const notesPart = firstOfType(slideRels, 'notesSlide');
    const notes = notesPart === undefined ? '' : readNotes(await pkg.xml(notesPart));
    if (notes) furniture.push({ type: 'note', text: notes, page, origin });
  }
  const images = await readPictureParts(pkg, pictures);
  return parsedDocument({ origin, body, furniture, images, pages });
}

/** What slides on a layout inherit, read once per layout: decks reuse a handful of layouts for every slide. */
async function inheritanceOf(pkg: OfficePackage, layoutPart: string | undefined, cache: Map<string, Inheritance>): Promise<Inheritance> {
  const key = layoutPart ?? '';
  const cached = cache.get(key);
  if (cached) return cached;
  const layout = layoutPart === undefined ? undefined : await pkg.xml(layoutPart);
  const masterPart = layoutPart === undefined ? undefined : firstOfType(await pkg.relationships(layoutPart), 'slideMaster');
  const master = masterPart === undefined ? undefined : await pkg.xml(masterPart);
  const inheritance = new Inheritance(layout, master);
  cache.set(key, inheritance);
  return inheritance;
}
