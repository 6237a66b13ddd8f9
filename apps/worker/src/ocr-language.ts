// The script rules alone: @readpack/ocr's index would load tesseract.js into the extract consumer.
import { languageForCidOrderings, languageForText, ScriptTally } from '@readpack/ocr/script-language';
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
 *      in a document whose other pages have text is most likely in their language; its text is
 *      tallied only when a page needs it: `documentScripts`);
 *   3. otherwise undefined: the OCR stage runs tesseract's script detection on the pixels.
 * Fonts come before text: a font's character collection is declared, text may be a stray
 * page number or a Latin header over a CJK scan.
 */
export async function pageLanguage(options: DocumentOptions, pages: readonly LanguagePage[], index: number, documentScripts: () => Promise<ScriptTally> = async () => tallyOf(pages)): Promise<PageLanguage | undefined> {
  if (options.ocrLang !== 'auto') return { code: options.ocrLang, source: options.ocrLangDefaulted ? 'default' : 'request' };
  const page = pages.find((p) => p.index === index);
  const byFont = languageForCidOrderings(page?.cidOrderings);
  if (byFont) return { code: byFont, source: 'font' };
  const byText = languageForText(page?.text ?? '');
  if (byText) return { code: byText, source: 'text' };
  const documentFont = languageForCidOrderings(pages.flatMap((p) => p.cidOrderings ?? []));
  if (documentFont) return { code: documentFont, source: 'font' };
  const documentText = (await documentScripts()).language();
  if (documentText) return { code: documentText, source: 'text' };
  return undefined;
}

/**
 * What pageLanguage reads of a page. A document read in parts keeps the text of the pages OCR
 * may read only, and tallies the scripts of all its text from its stored parts when asked.
 */
export type LanguagePage = Pick<ParsedPage, 'index' | 'text' | 'cidOrderings'>;

/** The scripts of every page's text. */
export function tallyOf(pages: readonly Pick<ParsedPage, 'text'>[]): ScriptTally {
  const tally = new ScriptTally();
  for (const page of pages) tally.add(page.text);
  return tally;
}
