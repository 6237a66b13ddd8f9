import { tableGrid, type FigureBlock, type Origin, type TableBlock } from '@readpack/reading-package';
import { child, descendants, elements, intAttr, val, type Relationship, type XmlElement } from '../ooxml.js';
import type { ParseOptions } from '../types.js';
import type { ListMark } from './lists.js';
import type { Numbering } from './numbering.js';
import { headingLevel, isCaptionStyle, isCodeStyle, isMonospaceFont, runPropertiesFont, type Styles } from './styles.js';
import { readTable } from './tables.js';

export interface NoteRef {
  kind: 'footnote' | 'endnote';
  id: string;
}

/** Turns a picture reference into a figure block; its asset is filled in once the bytes are read. */
export type FigureSink = (target: Relationship | undefined, alt: string | undefined) => FigureBlock;

/** Everything the reader needs to turn one part (document, header, note) into items. */
export interface PartContext {
  styles: Styles;
  numbering: Numbering;
  origin: Origin;
  /** Relationships of the part being read (pictures are relative to it). */
  rels: Map<string, Relationship>;
  /** Absent where figures have no place (headers, footers, notes are text furniture). */
  figure?: FigureSink;
  /** Note references met so far, in reading order. */
  notes: NoteRef[];
  limits: Required<ParseOptions>;
}

export type Item =
  | { kind: 'paragraph'; text: string; heading?: number; caption: boolean; code: boolean; list?: ListMark; figures: FigureBlock[] }
  | { kind: 'table'; block: TableBlock; figures: FigureBlock[] };

/** Containers whose children are read as if they stood in the parent (content controls, tracked insertions). */
const TRANSPARENT = new Set(['w:sdt', 'w:sdtContent', 'w:customXml', 'w:ins', 'w:moveTo']);
/** Deleted or moved-away text, properties, and ruby annotations: never part of the line a reader sees. */
const SKIPPED = new Set(['w:del', 'w:moveFrom', 'w:pPr', 'w:rPr', 'w:sectPr', 'w:sdtPr', 'w:sdtEndPr', 'w:rt', 'w:delText', 'w:delInstrText', 'w:proofErr', 'w:bookmarkStart', 'w:bookmarkEnd', 'w:commentRangeStart', 'w:commentRangeEnd', 'w:commentReference', 'w:annotationRef', 'w:footnoteRef', 'w:endnoteRef', 'w:separator', 'w:continuationSeparator', 'w:lastRenderedPageBreak']);
/** Word's maximum is far lower; this only bounds recursion on hostile nesting. */
const MAX_DEPTH = 64;

/** The block-level content of a body, cell, text box, note, header or footer, in order. */
export function readBlocks(container: XmlElement, ctx: PartContext, depth = 0): Item[] {
  const items: Item[] = [];
  if (depth > MAX_DEPTH) return items;
  for (const el of elements(container)) {
    switch (el.name) {
      case 'w:p':
        items.push(...readParagraph(el, ctx, depth));
        break;
      case 'w:tbl':
        items.push(readTable(el, ctx, depth));
        break;
      case 'mc:AlternateContent': {
        // The first choice is what a current Word shows; fallbacks repeat it for older readers.
        const choice = child(el, 'mc:Choice') ?? child(el, 'mc:Fallback');
        if (choice) items.push(...readBlocks(choice, ctx, depth + 1));
        break;
      }
      default:
        if (TRANSPARENT.has(el.name)) items.push(...readBlocks(el, ctx, depth + 1));
    }
  }
  return items;
}

interface Inline {
  text: string;
  /** Font of every run that has visible text: a paragraph all in a monospace font is code. */
  fonts: (string | undefined)[];
  figures: FigureBlock[];
  /** Text boxes anchored in the paragraph, read after it. */
  boxes: Item[];
  /** Complex fields open at this point (`w:fldChar` begin … separate … end), innermost last. */
  fields: { instruction: string; inResult: boolean }[];
}

/**
 * Fields whose shown result is a page number Word computes from the layout ("2" in a footer):
 * not text of the document, and wrong anywhere but on the page it was last drawn on.
 */
const PAGE_NUMBER_FIELD = /^\s*(PAGE|NUMPAGES|SECTIONPAGES)\b/i;

function hidesText(out: Inline): boolean {
  // Between begin and separate sits the field code; after separate, the result Word last showed.
  return out.fields.some((f) => !f.inResult || PAGE_NUMBER_FIELD.test(f.instruction));
}

function readParagraph(p: XmlElement, ctx: PartContext, depth: number): Item[] {
  const pPr = child(p, 'w:pPr');
  const style = ctx.styles.get(val(pPr, 'w:pStyle'));
  const inline: Inline = { text: '', fonts: [], figures: [], boxes: [], fields: [] };
  readInline(p, ctx, inline, style?.font, depth);
  const text = inline.text.replace(/[ \t]+$/gm, '').replace(/^\n+|\n+$/g, '');
  const heading = headingLevel(style, intAttr(val(pPr, 'w:outlineLvl')));
  const visible = text.trim() !== '';
  const code = visible && (isCodeStyle(style) || (inline.fonts.length > 0 && inline.fonts.every(isMonospaceFont)));
  const item: Item = { kind: 'paragraph', text, caption: isCaptionStyle(style), code, figures: inline.figures };
  if (heading !== undefined) item.heading = heading;
  else if (!code) {
    const list = listMark(child(pPr, 'w:numPr'), style?.numId, style?.ilvl, ctx.numbering);
    if (list) item.list = list;
  }
  return [item, ...inline.boxes];
}

function listMark(numPr: XmlElement | undefined, styleNumId: string | undefined, styleIlvl: number | undefined, numbering: Numbering): ListMark | undefined {
  const numId = val(numPr, 'w:numId') ?? styleNumId;
  // numId 0 is Word's explicit "no numbering here", overriding a list style.
  if (numId === undefined || numId === '0') return undefined;
  const ilvl = Math.min(Math.max(intAttr(val(numPr, 'w:ilvl')) ?? styleIlvl ?? 0, 0), 8);
  const level = numbering.level(numId, ilvl);
  if (!level) return undefined;
  const marker = numbering.nextMarker(numId, ilvl);
  const mark: ListMark = { numId, ilvl, ordered: level.ordered };
  if (marker) mark.marker = marker;
  if (level.ordered) mark.number = numbering.current(numId, ilvl);
  return mark;
}

function readInline(el: XmlElement, ctx: PartContext, out: Inline, font: string | undefined, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const node of el.children) {
    if (typeof node === 'string') continue; // whitespace between elements; text lives in w:t
    switch (node.name) {
      case 'w:r': {
        const rPr = child(node, 'w:rPr');
        const runFont = runPropertiesFont(rPr) ?? ctx.styles.get(val(rPr, 'w:rStyle'))?.font ?? font;
        readInline(node, ctx, out, runFont, depth + 1);
        break;
      }
      case 'w:fldChar': {
        const type = node.attrs['w:fldCharType'];
        if (type === 'begin') out.fields.push({ instruction: '', inResult: false });
        else if (type === 'separate') {
          const field = out.fields[out.fields.length - 1];
          if (field) field.inResult = true;
        } else if (type === 'end') out.fields.pop();
        break;
      }
      case 'w:instrText': {
        const field = out.fields[out.fields.length - 1];
        if (field) field.instruction += node.children.filter((c): c is string => typeof c === 'string').join('');
        break;
      }
      case 'w:fldSimple':
        if (!PAGE_NUMBER_FIELD.test(node.attrs['w:instr'] ?? '')) readInline(node, ctx, out, font, depth + 1);
        break;
      case 'w:t':
      case 'm:t': {
        if (hidesText(out)) break;
        const text = node.children.filter((c): c is string => typeof c === 'string').join('');
        out.text += text;
        if (text.trim() !== '') out.fonts.push(font);
        break;
      }
      case 'w:tab':
      case 'w:ptab':
        out.text += '\t';
        break;
      case 'w:br': {
        const type = node.attrs['w:type'];
        out.text += type === 'page' || type === 'column' ? '' : '\n';
        break;
      }
      case 'w:cr':
        out.text += '\n';
        break;
      case 'w:noBreakHyphen':
        out.text += '-';
        break;
      case 'w:footnoteReference':
      case 'w:endnoteReference': {
        // The mark is left out of the text (it would split words: "Ouch1."); the note becomes furniture.
        const id = node.attrs['w:id'];
        if (id !== undefined) ctx.notes.push({ kind: node.name === 'w:footnoteReference' ? 'footnote' : 'endnote', id });
        break;
      }
      case 'w:drawing':
        readDrawing(node, ctx, out, depth);
        break;
      case 'w:pict':
      case 'w:object':
        readVml(node, ctx, out, depth);
        break;
      case 'mc:AlternateContent': {
        const choice = child(node, 'mc:Choice') ?? child(node, 'mc:Fallback');
        if (choice) readInline(choice, ctx, out, font, depth + 1);
        break;
      }
      default:
        if (SKIPPED.has(node.name)) break;
        // Hyperlinks, content controls, insertions, math zones: their runs are part of the line.
        readInline(node, ctx, out, font, depth + 1);
    }
  }
}

/** DrawingML pictures (`wp:inline`/`wp:anchor`), alt text from `wp:docPr` (description, else title). */
function readDrawing(drawing: XmlElement, ctx: PartContext, out: Inline, depth: number): void {
  for (const frame of elements(drawing)) {
    const docPr = child(frame, 'wp:docPr');
    const frameAlt = nonBlank(docPr?.attrs.descr) ?? nonBlank(docPr?.attrs.title);
    for (const pic of descendants(frame, 'pic:pic')) {
      const cNvPr = child(child(pic, 'pic:nvPicPr'), 'pic:cNvPr');
      const alt = frameAlt ?? nonBlank(cNvPr?.attrs.descr) ?? nonBlank(cNvPr?.attrs.title);
      const blip = descendants(pic, 'a:blip')[0];
      const rId = blip?.attrs['r:embed'] ?? blip?.attrs['r:link'];
      if (ctx.figure && rId !== undefined) out.figures.push(ctx.figure(ctx.rels.get(rId), alt));
    }
    for (const box of descendants(frame, 'w:txbxContent')) out.boxes.push(...readBlocks(box, ctx, depth + 1));
  }
}

/** Legacy VML pictures (`v:imagedata`) and text boxes. */
function readVml(pict: XmlElement, ctx: PartContext, out: Inline, depth: number): void {
  for (const shape of elements(pict)) {
    for (const data of descendants(shape, 'v:imagedata')) {
      const rId = data.attrs['r:id'] ?? data.attrs['r:pict'];
      const alt = nonBlank(shape.attrs.alt) ?? nonBlank(data.attrs['o:title']);
      if (ctx.figure && rId !== undefined) out.figures.push(ctx.figure(ctx.rels.get(rId), alt));
    }
    for (const box of descendants(shape, 'w:txbxContent')) out.boxes.push(...readBlocks(box, ctx, depth + 1));
  }
}

function nonBlank(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

/** Plain text of items, as a table cell shows them: one line per paragraph, list items with their marks. */
export function itemsText(items: Item[]): string {
  const lines: string[] = [];
  for (const item of items) {
    if (item.kind === 'table') {
      lines.push(...tableText(item.block));
    } else if (item.text.trim() !== '') {
      lines.push(item.list?.marker ? `${item.list.marker} ${item.text}` : item.text);
    }
  }
  return lines.join('\n');
}

function tableText(table: TableBlock): string[] {
  return tableGrid(table)
    .map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')).join('\t').replace(/\t+$/, ''))
    .filter((line) => line.trim() !== '');
}

