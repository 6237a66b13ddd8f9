import { readFile } from 'node:fs/promises';
import mammoth from 'mammoth';
import { gridTable, type FlowBlock } from '@readpack/reading-package';
import { embeddedImage, parsedDocument } from './document.js';
import { parseHtml, type HtmlElement } from './html.js';
import { assertOfficeOpenXml, errorMessage } from './ooxml.js';
import { DocumentError, type EmbeddedImage, type ParseInput, type ParseOptions, type ParsedDocument, type ParsedTable, type PartOrigin } from './types.js';
import { libraryOrigin } from './versions.js';
import { assertSafeOfficeZip } from './zip-bomb-guard.js';

type ImageConverter = Parameters<typeof mammoth.images.imgElement>[0];
type MammothImage = Parameters<ImageConverter>[0];

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/bmp': 'bmp',
  'image/tiff': 'tif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/x-emf': 'emf',
  'image/x-wmf': 'wmf',
};

const BLOCKS = new Set(['#root', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'div', 'ul', 'ol', 'td', 'th', 'caption']);
const NOTE_ITEM = /^(footnote|endnote)-\d+$/;
const NOTE_LINK = /^#?(footnote|endnote|comment)-ref-/;
/** Word allows 63 columns; anything far beyond is a malformed span. */
const MAX_SPAN = 1000;

interface Render {
  origin: PartOrigin;
  tables: ParsedTable[];
  notes: string[];
}

/**
 * DOCX via mammoth's HTML conversion, the only mammoth output that carries footnotes, endnotes and
 * table structure (`extractRawText` drops the notes). Footnote/endnote markers are removed from
 * the body (they would split words: "Ouch[1].") and the notes are appended after a blank line.
 */
export async function parseDocx(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  const buffer = await readFile(input.path);
  assertOfficeOpenXml(buffer, 'DOCX');
  await assertSafeOfficeZip(buffer, 'DOCX', limits);
  const origin = libraryOrigin('mammoth', 'native');
  const collected: { order: number; image: EmbeddedImage }[] = [];
  let seen = 0;
  const convert = async (image: MammothImage): Promise<{ src: string }> => {
    const order = ++seen;
    const mediaType = image.contentType || 'application/octet-stream';
    let data: Uint8Array;
    try {
      data = new Uint8Array(await image.readAsBuffer());
    } catch {
      // A dangling image reference (the media part is missing): keep the text, skip the image.
      return { src: '' };
    }
    collected.push({ order, image: embeddedImage(`image-${order}.${EXTENSIONS[mediaType] ?? 'bin'}`, mediaType, data) });
    return { src: `readpack-image:${order}` };
  };
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer }, { convertImage: mammoth.images.imgElement(convert) })).value;
  } catch (err) {
    throw new DocumentError('corrupt_document', `not a readable DOCX file: ${errorMessage(err)}`, { cause: err });
  }
  const render: Render = { origin, tables: [], notes: [] };
  const lines = blockLines(parseHtml(html), render);
  let text = lines.join('\n');
  if (render.notes.length > 0) text += `${text ? '\n\n' : ''}${render.notes.join('\n')}`;
  const body: FlowBlock[] = text.split('\n').filter((t) => t.trim() !== '').map((t) => ({ type: 'paragraph' as const, text: t, origin }));
  body.push(...render.tables.map((t) => ({ ...gridTable(t.rows, origin), name: t.name })));
  return parsedDocument({ origin, body, images: collected.sort((a, b) => a.order - b.order).map((c) => c.image) });
}

function isNoteLink(el: HtmlElement): boolean {
  return el.tag === 'a' && (NOTE_LINK.test(el.attrs.id ?? '') || NOTE_LINK.test(el.attrs.href ?? ''));
}

function tidy(text: string): string {
  return text.replace(/[ \t]+\n/g, '\n').replace(/\n[ \t]+/g, '\n').trim();
}

/** Inline content as one string: `br` is a newline, images and note markers vanish. */
function inlineText(el: HtmlElement, render: Render): string {
  let out = '';
  for (const child of el.children) {
    if (typeof child === 'string') out += child;
    else if (child.tag === 'br') out += '\n';
    else if (child.tag === 'img' || isNoteLink(child)) continue;
    else if (child.tag === 'table') out += `\n${tableLines(child, render).join('\n')}\n`;
    else out += inlineText(child, render);
  }
  return out;
}

/** The element's content as text lines, blocks one per line, lists marked, tables row by row. */
function blockLines(el: HtmlElement, render: Render): string[] {
  const out: string[] = [];
  let inline = '';
  let item = 0;
  const flush = (): void => {
    const text = tidy(inline);
    if (text) out.push(text);
    inline = '';
  };
  for (const child of el.children) {
    if (typeof child === 'string') {
      inline += child;
    } else if (child.tag === 'table') {
      flush();
      out.push(...tableLines(child, render));
    } else if (child.tag === 'li') {
      flush();
      const lines = blockLines(child, render);
      if (NOTE_ITEM.test(child.attrs.id ?? '')) {
        if (lines.length > 0) render.notes.push(lines.join('\n'));
        continue;
      }
      item += 1;
      const marker = el.tag === 'ol' ? `${item}. ` : '- ';
      lines.forEach((line, i) => out.push(i === 0 ? marker + line : `  ${line}`));
    } else if (BLOCKS.has(child.tag)) {
      flush();
      out.push(...blockLines(child, render));
    } else if (child.tag === 'br') {
      inline += '\n';
    } else if (child.tag !== 'img' && !isNoteLink(child)) {
      inline += inlineText(child, render);
    }
  }
  flush();
  return out;
}

function tableRows(table: HtmlElement): HtmlElement[] {
  const rows: HtmlElement[] = [];
  for (const child of table.children) {
    if (typeof child === 'string') continue;
    if (child.tag === 'tr') rows.push(child);
    else if (child.tag === 'thead' || child.tag === 'tbody' || child.tag === 'tfoot') rows.push(...tableRows(child));
  }
  return rows;
}

function span(value: string | undefined): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) ? Math.min(Math.max(n, 1), MAX_SPAN) : 1;
}

/**
 * Registers the table (numbered in document order, outer before nested) and returns its text
 * lines. Spans are expanded into a rectangular grid with the text in the first (top-left) cell.
 */
function tableLines(table: HtmlElement, render: Render): string[] {
  const parsed: ParsedTable = { name: `Table ${render.tables.length + 1}`, rows: [], origin: render.origin };
  render.tables.push(parsed);
  const trs = tableRows(table);
  const grid: (string | undefined)[][] = trs.map(() => []);
  trs.forEach((tr, r) => {
    const row = grid[r] ?? [];
    let c = 0;
    for (const cell of tr.children) {
      if (typeof cell === 'string' || (cell.tag !== 'td' && cell.tag !== 'th')) continue;
      while (row[c] !== undefined) c += 1;
      const rows = Math.min(span(cell.attrs.rowspan), trs.length - r);
      const cols = span(cell.attrs.colspan);
      const text = blockLines(cell, render).join('\n');
      for (let dr = 0; dr < rows; dr += 1) {
        const target = grid[r + dr];
        if (!target) continue;
        for (let dc = 0; dc < cols; dc += 1) target[c + dc] = dr === 0 && dc === 0 ? text : '';
      }
      c += cols;
    }
  });
  const width = Math.max(0, ...grid.map((row) => row.length));
  parsed.rows = grid.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ''));
  return parsed.rows
    .map((row) => row.map((cell) => cell.replace(/\s*\n\s*/g, ' ')).join('\t').replace(/\t+$/, ''))
    .filter((line) => line.trim() !== '');
}
