import { parseDocx } from './docx.js';
import { resolveLimits } from './limits.js';
import { parsePdf } from './pdf.js';
import { parsePptx } from './pptx.js';
import { parseText } from './text.js';
import { DocumentError, type ParseInput, type ParseOptions, type ParsedDocument } from './types.js';
import { parseXlsx } from './xlsx.js';

export * from './types.js';
export { DEFAULT_LIMITS } from './limits.js';
export { parseCsv } from './csv.js';
export { decodeText } from './text.js';
export { countChars, embeddedImage, parsedDocument, tablesOf } from './document.js';

export const DOCX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const PDF_MEDIA_TYPE = 'application/pdf';
export const PPTX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** Media types `parseDocument` accepts (compared without parameters, case-insensitively). */
export const SUPPORTED_MEDIA_TYPES: readonly string[] = Object.freeze([
  PDF_MEDIA_TYPE,
  DOCX_MEDIA_TYPE,
  XLSX_MEDIA_TYPE,
  PPTX_MEDIA_TYPE,
  'text/plain',
  'text/markdown',
  'text/csv',
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
 */
export async function parseDocument(input: ParseInput, options: ParseOptions = {}): Promise<ParsedDocument> {
  const limits = resolveLimits(options);
  const mediaType = essence(input.mediaType);
  switch (mediaType) {
    case PDF_MEDIA_TYPE:
      return parsePdf(input, limits);
    case DOCX_MEDIA_TYPE:
      return parseDocx(input, limits);
    case XLSX_MEDIA_TYPE:
      return parseXlsx(input, limits);
    case PPTX_MEDIA_TYPE:
      return parsePptx(input, limits);
    case 'text/plain':
    case 'text/markdown':
    case 'text/csv':
      return parseText(input, mediaType, limits);
    default:
      throw new DocumentError('unsupported_content', `documents of type ${mediaType || '(none)'} cannot be parsed`);
  }
}
