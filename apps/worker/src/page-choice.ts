import type { ParsedPage } from '@readpack/parsers';
import type { StoredOcrPage } from './stages/ocr.js';

export interface PageChoice {
  /** True: OCR's blocks replace the page's text layer. */
  chosen: boolean;
  /** The verdict in words, recorded in the package (`pages[].ocr.reason`). */
  reason: string;
}

/**
 * Decides whether OCR's reading of a page replaces its text layer. A page reaches OCR only when
 * its text layer was too thin (ocr-routing.ts); OCR is taken when the layer is empty.
 */
export function choosePageReading(textLayer: ParsedPage, ocr: StoredOcrPage): PageChoice {
  if (textLayer.charCount === 0) return { chosen: true, reason: 'the page has no text layer' };
  return { chosen: ocr.text.trim() !== '', reason: 'the text layer has fewer characters than OCR_MIN_CHARS_PER_PAGE' };
}
