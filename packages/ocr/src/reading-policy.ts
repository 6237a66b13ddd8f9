import { normalizeImage } from './contrast.js';
import type { OcrImage } from './image-input.js';
import type { LanguageSpec } from './languages.js';
import { type OcrPage, withoutOverlappingLines } from './page-result.js';
import type { OcrReader } from './reader.js';

/**
 * How Readpack reads a page, the steps kept because `bench:ocr` showed them to help (its
 * "preprocessing" section measures each with and without, per language and glyph size):
 *
 * - gray pixels as they are: no contrast stretch (`normalize`, no better in the bench), no
 *   thresholding, no scaling (tesseract binarises and rescales itself; both did worse in the
 *   bench), no dpi hint (no better in the bench, and worse on the corpus scans before: CER
 *   4.3% → 8.8% on a MEDRPT page);
 * - tesseract's automatic layout analysis first (columns, tables and pictures stay apart);
 * - a snippet (fewer than SNIPPET_CHARS characters read) is read again as one uniform block, and
 *   the reading with more surely read characters (words of confidence ≥ 70) kept, the
 *   single-block one without lines it found twice (withoutOverlappingLines): on short CJK lines the layout
 *   analysis split off or dropped leading characters (a 320×180 one-line chi_sim image lost 2
 *   of its 6), which the single-block reading reads right. A full page is never read twice.
 */
export const SNIPPET_CHARS = 200;

export interface ReadOptions {
  lang: LanguageSpec;
  /** Resolution hint; undefined (the default policy) lets tesseract estimate it. */
  dpi?: number;
  /** Off: one automatic-layout reading only (the bench's "without" column). */
  snippetRescue?: boolean;
  /** On: stretch the contrast first (1st percentile → black, 99th → white). Off by default: the bench found it no help. */
  normalize?: boolean;
}

/** Words below this confidence do not count for a reading: a single-block reading of a picture or a map reads more junk, not more text. */
export const SURE_WORD_CONFIDENCE = 70;

/** Σ length × confidence of the surely read words: how much text a reading got, and how surely. */
export function readingScore(page: OcrPage): number {
  return page.words.filter((w) => w.confidence >= SURE_WORD_CONFIDENCE).reduce((sum, w) => sum + [...w.text].length * w.confidence, 0);
}

export async function readPage(reader: OcrReader, given: OcrImage, options: ReadOptions): Promise<OcrPage> {
  const image = options.normalize === true ? normalizeImage(given) : given;
  const hint = options.dpi === undefined ? {} : { dpi: options.dpi };
  const auto = await reader.recognize(image, { lang: options.lang, segmentation: 'auto', ...hint });
  if (options.snippetRescue === false || [...auto.text.replace(/\s/g, '')].length >= SNIPPET_CHARS) return auto;
  const block = withoutOverlappingLines(await reader.recognize(image, { lang: options.lang, segmentation: 'block', ...hint }), SURE_WORD_CONFIDENCE);
  return readingScore(block) > readingScore(auto) ? block : auto;
}
