// The script rules alone: @readpack/ocr's index would load tesseract.js into the extract consumer.
import { languageForCidOrderings, languageForText } from '@readpack/ocr/script-language';
import type { ParsedPage } from '@readpack/parsers';
import type { DocumentOptions } from '@readpack/queues';

/** A page's OCR language as extract decides it; the OCR stage decides the rest from the pixels. */
export interface PageLanguage {
  code: string;
  source: 'request' | 'font' | 'text' | 'default';
}

/**
 * The language a page is OCR-read with, when the document can say:
 *   1. the upload named one (`request`), or the deployment's default is a language (`default`);
 *   2. `auto`: the page's own CID fonts (Japan1 → jpn, GB1 → chi_sim, CNS1 → chi_tra, Korea1 →
 *      kor), then the scripts of its own extractable text (kana → jpn, Hangul → kor, Han →
 *      chi_sim or chi_tra, Latin → eng), then the same over the whole document (a scanned page
 *      in a document whose other pages have text is most likely in their language);
 *   3. otherwise undefined: the OCR stage runs tesseract's script detection on the pixels.
 * Fonts come before text: a font's character collection is declared, text may be a stray
 * page number or a Latin header over a CJK scan.
 */
export function pageLanguage(options: DocumentOptions, pages: readonly ParsedPage[], index: number): PageLanguage | undefined {
  if (options.ocrLang !== 'auto') return { code: options.ocrLang, source: options.ocrLangDefaulted ? 'default' : 'request' };
  const page = pages.find((p) => p.index === index);
  const byFont = languageForCidOrderings(page?.cidOrderings);
  if (byFont) return { code: byFont, source: 'font' };
  const byText = languageForText(page?.text ?? '');
  if (byText) return { code: byText, source: 'text' };
  const documentFont = languageForCidOrderings(pages.flatMap((p) => p.cidOrderings ?? []));
  if (documentFont) return { code: documentFont, source: 'font' };
  const documentText = languageForText(pages.map((p) => p.text).join('\n'));
  if (documentText) return { code: documentText, source: 'text' };
  return undefined;
}
