import { resolveLimits } from './limits.js';
import { parsePdf, parsePdfSlice, planPdf, type PdfPlan, type PdfSlice } from './pdf.js';
export { pdfTextLayerOrigin } from './pdf.js';
import { parseText, TEXT_MEDIA_TYPES } from './text.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';

export * from './types.js';
export { DEFAULT_LIMITS } from './limits.js';
export { parseCsv } from './csv.js';
export { csvHeaderRows, decodeText } from './text.js';
export { htmlBlocks, htmlDocument } from './html-blocks.js';
export { markdownBlocks } from './markdown-blocks.js';
export { countChars, embeddedImage, pagesOf, parsedDocument, tablesOf, type PageFrame } from './document.js';
export type { PdfPlan, PdfSlice } from './pdf.js';
export { mergePdfSlices, mergePdfSlicesInParts, PART_PAGES, type DocumentPart, type PartPage, type PdfOutlineEntry, type SizeChars, type SliceSource, type SlicePage } from './pdf/slices.js';

/** A PDF parsed whole when it has at most `sliceAbove` pages, else its page count and outline for slicing (see planPdf). */
export function planPdfDocument(input: ParseInput, options: ParseOptions, sliceAbove: number): Promise<PdfPlan> {
  return planPdf(input, resolveLimits(options), sliceAbove);
}

/** Pages `from` (inclusive) to `to` (exclusive) of a PDF, before the document-wide steps (see parsePdfSlice). */
export function parsePdfPages(input: ParseInput, options: ParseOptions, range: { from: number; to: number; firstPage?: number }): Promise<PdfSlice> {
  return parsePdfSlice(input, resolveLimits(options), range);
}

export const DOCX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const PDF_MEDIA_TYPE = 'application/pdf';
export const PPTX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
export const XLS_MEDIA_TYPE = 'application/vnd.ms-excel';
export const ODS_MEDIA_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';
export const DOC_MEDIA_TYPE = 'application/msword';
export const EPUB_MEDIA_TYPE = 'application/epub+zip';

/** Media types `parseDocument` accepts (compared without parameters, case-insensitively). */
export const SUPPORTED_MEDIA_TYPES: readonly string[] = Object.freeze([
  PDF_MEDIA_TYPE,
  DOCX_MEDIA_TYPE,
  XLSX_MEDIA_TYPE,
  PPTX_MEDIA_TYPE,
  XLS_MEDIA_TYPE,
  ODS_MEDIA_TYPE,
  DOC_MEDIA_TYPE,
  EPUB_MEDIA_TYPE,
  ...TEXT_MEDIA_TYPES,
]);

/** `Text/Plain; charset=utf-8` → `text/plain`. */
function essence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

export function isSupportedMediaType(mediaType: string): boolean {
  return SUPPORTED_MEDIA_TYPES.includes(essence(mediaType));
}

/**
 * Parses the document at `input.path` by its (sniffed) media type. Problems with the document
 * itself reject with `DocumentError`; anything else (I/O errors, bugs) rejects as is.
 *
 * The PDF and text readers are loaded with this module (a large PDF's plan and slices use them);
 * the Office, DOC and EPUB readers on their first document: a parser thread that reads PDFs never
 * holds SheetJS or word-extractor (~12 MB of RSS), and one that starts for a DOCX loads less.
 */
export async function parseDocument(input: ParseInput, options: ParseOptions = {}): Promise<ParsedDocument> {
  const limits = resolveLimits(options);
  const mediaType = essence(input.mediaType);
  switch (mediaType) {
    case PDF_MEDIA_TYPE:
      return parsePdf(input, limits);
    case DOCX_MEDIA_TYPE:
      return (await import('./docx.js')).parseDocx(input, limits);
    case XLSX_MEDIA_TYPE:
      return (await import('./xlsx.js')).parseXlsx(input, limits);
    case PPTX_MEDIA_TYPE:
      return (await import('./pptx.js')).parsePptx(input, limits);
    case XLS_MEDIA_TYPE:
      return (await import('./xlsx.js')).parseSpreadsheet(input, 'XLS', limits);
    case ODS_MEDIA_TYPE:
      return (await import('./xlsx.js')).parseSpreadsheet(input, 'ODS', limits);
    case DOC_MEDIA_TYPE:
      return (await import('./doc.js')).parseDoc(input);
    case EPUB_MEDIA_TYPE:
      return (await import('./epub.js')).parseEpub(input, limits);
    case 'text/plain':
    case 'text/markdown':
    case 'text/csv':
    case 'text/tab-separated-values':
    case 'text/html':
      return parseText(input, mediaType, limits);
    default:
      throw new DocumentError('unsupported_content', `documents of type ${mediaType || '(none)'} cannot be parsed`);
  }
}
