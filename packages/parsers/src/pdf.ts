import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { classifyPdfOpenError } from '@readpack/media';
import type { Origin } from '@readpack/reading-package';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentInitParameters } from 'pdfjs-dist/types/src/display/api.js';
import { cidOrdering } from './pdf/cid-orderings.js';
import { fillRuledTable, readPageGraphics } from './pdf/graphics.js';
import { lineFragments } from './pdf/lines.js';
import { outlineEntries } from './pdf/outline.js';
import { checkedPageCount, visiblePageObjects } from './pdf/page-count.js';
import { placeGraphics } from './pdf/place-graphics.js';
import { mergePdfSlices, sizeChars, type PdfOutlineEntry, type SizeChars, type SlicePage } from './pdf/slices.js';
import { fontFactsFromName, layoutFrame, mainDirection, textRuns, type FontFacts, type RawTextItem, type ToPage } from './pdf/text-items.js';
import { DocumentError, type EmbeddedImage, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { libraryOrigin, packageDir } from './versions.js';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsPromise: Promise<Pdfjs> | undefined;
const PDFJS_WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/**
 * Loaded on first use: importing pdfjs costs ~100 ms that other formats never need. The worker
 * module is imported here too (pdfjs would import it on the first document), because the legacy
 * build's core-js, in both modules, replaces `Array.prototype.push` process-wide on Node 20 (V8
 * there does not throw for a push onto an array whose length is read-only) with a JavaScript
 * version, which made a tenth of a PDF parse's time and slows every other push in the process:
 * the native one is put back once both are loaded, as nothing here pushes onto frozen arrays.
 */
function loadPdfjs(): Promise<Pdfjs> {
  pdfjsPromise ??= (async () => {
    const nativePush = Array.prototype.push;
    try {
      const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
      // Imported for its side effect only (it sets `globalThis.pdfjsWorker`, which pdfjs's
      // in-process worker then uses); a specifier of type string because the module has no types.
      await import(PDFJS_WORKER);
      return pdfjs;
    } finally {
      if (Array.prototype.push !== nativePush) Object.defineProperty(Array.prototype, 'push', { value: nativePush, writable: true, enumerable: false, configurable: true });
    }
  })();
  return pdfjsPromise;
}

/**
 * Folders (with a trailing separator: pdfjs appends file names) of the installed pdfjs-dist's
 * packed CMaps and standard fonts. Without the CMaps, text in fonts with a predefined CMap (CJK:
 * `H`, `V`, `UniJIS-UCS2-H`, `GBK-EUC-H`…) extracts as nothing, silently.
 */
function pdfjsAssets(): { cMapUrl: string; cMapPacked: true; standardFontDataUrl: string } {
  const root = packageDir('pdfjs-dist');
  // pdfjs reports a CMap it cannot load as nothing at all: a broken install must fail loudly.
  if (!existsSync(join(root, 'cmaps', 'UniJIS-UCS2-H.bcmap'))) throw new Error(`pdfjs-dist at ${root} has no packed CMaps`);
  return { cMapUrl: join(root, 'cmaps') + sep, cMapPacked: true, standardFontDataUrl: join(root, 'standard_fonts') + sep };
}

/**
 * A document for pdfjs's font loader to write its `@font-face` rules into, which nothing reads.
 * In Node pdfjs defaults to `disableFontFace`, and then its worker turns every glyph drawn into a
 * path (for a canvas to fill) and sends it over: a fifth of an operator list's cost, for pages we
 * never render. With font faces on and no FontFace API, pdfjs puts each font in a style sheet
 * (and counts font loading as synchronous in Node): this sink takes the rule and drops it.
 */
const fontRuleSink = {
  createElement: () => ({ sheet: { insertRule: () => 0, cssRules: [] }, remove: () => undefined }),
  documentElement: { getElementsByTagName: () => [{ append: () => undefined }] },
} as unknown as NonNullable<DocumentInitParameters['ownerDocument']>;

/** Largest embedded image kept as a figure asset; larger ones stay figures without an asset. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;
/** The largest page side PDF allows (14 400 units) with a generous UserUnit margin. */
const MAX_PAGE_SIDE = 200_000;

function toDocumentError(err: unknown, passwordGiven: boolean): unknown {
  if (err instanceof DocumentError) return err;
  const failure = classifyPdfOpenError(err, passwordGiven);
  return failure ? new DocumentError(failure.code, failure.message, { cause: err }) : err;
}

/**
 * Structured extraction of a PDF's text layer with pdfjs-dist: text items are measured, grouped
 * into lines and paragraphs in reading order (XY-cut, so columns read one after the other),
 * headings come from the outline and font statistics, lists from markers, running headers and
 * footers go to furniture. Every page is kept, also those without a text layer (empty text,
 * charCount 0): the OCR stage picks them up.
 */
export async function parsePdf(input: ParseInput, limits: Required<ParseOptions>): Promise<ParsedDocument> {
  return openPdf(input, limits, async (doc, total) => wholeDocument(doc, total));
}

/** A PDF at most `sliceAbove` pages long, parsed; or a longer one's page count and outline, to be read in slices (parsePdfSlice, mergePdfSlices). */
export type PdfPlan = { kind: 'whole'; document: ParsedDocument } | { kind: 'sliced'; pages: number; outline: PdfOutlineEntry[] };

/**
 * What a large PDF's extract job does first: open the document once, and parse it whole when it
 * has at most `sliceAbove` pages (nothing changes for those), else read only its page count
 * (checked, and against MAX_PAGES) and its outline.
 */
export async function planPdf(input: ParseInput, limits: Required<ParseOptions>, sliceAbove: number): Promise<PdfPlan> {
  return openPdf(input, limits, async (doc, total) => (total > sliceAbove ? { kind: 'sliced', pages: total, outline: await outlineEntries(doc) } : { kind: 'whole', document: await wholeDocument(doc, total) }));
}

/** One slice of a PDF: its pages' text and graphics before the document-wide steps, its embedded images, its size statistics. */
export interface PdfSlice {
  pages: SlicePage[];
  images: EmbeddedImage[];
  sizes: SizeChars;
}

/**
 * Pages `from` (inclusive) to `to` (exclusive, clamped to the document) of a PDF, for
 * mergePdfSlices. `firstPage` is the document page the file's first page is: a slice's own file
 * (the document split into parts, so that opening it costs its pages, not the document's) holds
 * pages `firstPage`… of the document, and its pages keep their document page numbers.
 */
export async function parsePdfSlice(input: ParseInput, limits: Required<ParseOptions>, range: { from: number; to: number; firstPage?: number }): Promise<PdfSlice> {
  const firstPage = range.firstPage ?? 0;
  if (firstPage > range.from) throw new RangeError(`a file starting at page ${firstPage} has no page ${range.from}`);
  return openPdf(input, limits, async (doc, total) => {
    if (range.from - firstPage >= total) throw new DocumentError('corrupt_document', `the PDF has ${total} pages, fewer than the slice from page ${range.from} expects`);
    const images: EmbeddedImage[] = [];
    const pages: SlicePage[] = [];
    for (let index = range.from; index < Math.min(range.to, firstPage + total); index += 1) pages.push(await readPage(doc, index - firstPage, pdfTextLayerOrigin(), images, index));
    return { pages, images, sizes: sizeChars(pages) };
  });
}

/** What every block of a PDF's text layer says it came from. */
export const pdfTextLayerOrigin = (): Origin => libraryOrigin('pdfjs-dist', 'text-layer');

async function wholeDocument(doc: PDFDocumentProxy, total: number): Promise<ParsedDocument> {
  const origin = pdfTextLayerOrigin();
  const images: EmbeddedImage[] = [];
  const pages: SlicePage[] = [];
  for (let index = 0; index < total; index += 1) pages.push(await readPage(doc, index, origin, images));
  // The same merge as a sliced document's, over one slice held in memory: the two cannot drift apart.
  const parsed = await mergePdfSlices([{ pageCount: pages.length, sizes: sizeChars(pages), load: async () => pages }], await outlineEntries(doc), origin);
  return { ...parsed, images };
}

/** Opens the PDF, checks its page count (a count over the limit fails before the page tree is walked), and runs `work` on it. */
async function openPdf<T>(input: ParseInput, limits: Required<ParseOptions>, work: (doc: PDFDocumentProxy, total: number) => Promise<T>): Promise<T> {
  const data = await readFile(input.path);
  if (data.length === 0) throw new DocumentError('corrupt_document', 'the PDF file is empty (0 bytes)');
  // Counted before pdfjs takes the bytes: it transfers (detaches) them, and a copy would double a
  // large PDF in every slice's thread. The rare file whose page tree must be walked is read again.
  const visible = visiblePageObjects(data);
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // A view of the same memory (pdfjs refuses a Buffer, and copies a view of part of a larger buffer).
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...pdfjsAssets(),
    isEvalSupported: false,
    disableFontFace: false,
    useSystemFonts: false,
    ownerDocument: fontRuleSink,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    const tooMany = (pages: number): DocumentError => new DocumentError('too_many_pages', `the PDF has ${pages} pages, more than the limit of ${limits.maxPages}`);
    // A declared count over the limit fails before the page tree is walked to check it.
    if (Number.isInteger(doc.numPages) && doc.numPages > limits.maxPages) throw tooMany(doc.numPages);
    const total = await checkedPageCount(doc.numPages, visible, () => readFile(input.path));
    if (total === 0) throw new DocumentError('empty_document', 'the PDF has no pages');
    if (total > limits.maxPages) throw tooMany(total);
    return await work(doc, total);
  } catch (err) {
    throw toDocumentError(err, input.password !== undefined && input.password !== '');
  } finally {
    try {
      await task.destroy();
    } catch {
      // Tear-down of an already failed or finished document: its outcome is decided above.
    }
  }
}

/** The font facts pdfjs has for a loaded font (after the page's operator list was built). */
interface LoadedFont {
  name?: unknown;
  bold?: unknown;
  italic?: unknown;
  black?: unknown;
  vertical?: unknown;
}

function loadedFont(page: PDFPageProxy, fontName: string): LoadedFont | undefined {
  if (!page.commonObjs.has(fontName)) return undefined;
  const font: unknown = page.commonObjs.get(fontName);
  return typeof font === 'object' && font !== null ? (font as LoadedFont) : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Reads page `fileIndex` of the open file, which is page `index` of the document (they differ in a part of a split document). */
async function readPage(doc: PDFDocumentProxy, fileIndex: number, origin: Origin, images: EmbeddedImage[], index = fileIndex): Promise<SlicePage> {
  const page = await doc.getPage(fileIndex + 1);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const sane = [viewport.width, viewport.height].every((n) => Number.isFinite(n) && n > 0 && n <= MAX_PAGE_SIDE);
    // A page whose declared box is no box: PDF y up is simply flipped, and the page gets no size.
    const toPage: ToPage = sane ? (x, y) => viewport.convertToViewportPoint(x, y) as [number, number] : (x, y) => [x, -y];
    const graphics = await readPageGraphics(page, index, { maxImageBytes: MAX_IMAGE_BYTES });
    const content = await page.getTextContent();
    // Font names (bold, italic, the CJK family) reach commonObjs only with an operator list, and
    // fonts are shared by the document's pages: it is built only for pages with a font not seen yet.
    const fontsUsed = new Set(content.items.flatMap((item) => ('fontName' in item ? [item.fontName] : [])));
    if ([...fontsUsed].some((name) => !page.commonObjs.has(name))) await page.getOperatorList();
    const styles = content.styles as Record<string, { vertical?: boolean } | undefined>;
    const fonts = new Map<string, FontFacts>();
    const fontOf = (fontName: string): FontFacts => {
      let facts = fonts.get(fontName);
      if (!facts) {
        const font = loadedFont(page, fontName);
        facts = fontFactsFromName(str(font?.name), {
          bold: font?.bold === true,
          italic: font?.italic === true,
          black: font?.black === true,
          vertical: font?.vertical === true || styles[fontName]?.vertical === true,
        });
        fonts.set(fontName, facts);
      }
      return facts;
    };
    const items = content.items.filter((item): item is RawTextItem & (typeof content.items)[number] => 'str' in item);
    const placement = placeGraphics(graphics, textRuns(items, fontOf, toPage), index, origin, fillRuledTable);
    images.push(...placement.images);
    const { placed, runs } = placement;

    const direction = mainDirection(runs);
    const frame = sane ? layoutFrame(direction, viewport.width, viewport.height) : undefined;
    const data: SlicePage = {
      index,
      fragments: lineFragments(frame ? runs.map((r) => ({ ...r, bbox: frame.toFrame(r.bbox) })) : runs),
      graphics: frame ? placed.map((g) => ({ ...g, frameBox: frame.toFrame(g.frameBox) })) : placed,
      cidOrderings: pageCidOrderings(items, (name) => loadedFont(page, name)),
    };
    if (frame) {
      data.width = viewport.width;
      data.height = viewport.height;
      data.frameHeight = frame.height;
      data.direction = direction;
      data.viewport = [...viewport.transform];
    }
    return data;
  } finally {
    page.cleanup();
  }
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * CID orderings of the fonts that drew CJK text on the page, sorted. (pdfjs exports a font's
 * CMap only with `fontExtraProperties`, which doubles the cost of every page: the font's name and
 * its text tell the ordering instead.)
 */
function pageCidOrderings(items: readonly RawTextItem[], fontOf: (name: string) => LoadedFont | undefined): string[] {
  const textByFont = new Map<string, string>();
  for (const item of items) if (CJK.test(item.str)) textByFont.set(item.fontName, (textByFont.get(item.fontName) ?? '') + item.str);
  const orderings = new Set<string>();
  for (const [name, text] of textByFont) {
    const ordering = cidOrdering(undefined, str(fontOf(name)?.name), text);
    if (ordering) orderings.add(ordering);
  }
  return [...orderings].sort();
}
