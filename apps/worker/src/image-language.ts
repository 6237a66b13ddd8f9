import { dominantLanguage, OcrError, readingScore, scriptLanguage, type OcrImage, type OcrPage, type OcrReader } from '@readpack/ocr';

/**
 * Languages a probe reading may find: the CJK ones first, as tesseract keeps the first
 * language's reading where two are equally sure, and a Latin-only model would read CJK as junk.
 */
const PROBE = 'jpn+kor+chi_sim+eng';
/** Below this OSD script confidence the verdict is a guess (tesseract's own examples use 1–2 for clear pages). */
const MIN_OSD_CONFIDENCE = 1;
/** Probe words below this confidence do not vote for a script. */
const SURE_WORD = 60;

export interface ImageLanguage {
  lang: string;
  /** `osd`: from the pixels (tesseract's OSD, or a probe reading when OSD cannot tell); `default`: nothing found. */
  source: 'osd' | 'default';
  /** The single-block probe's reading, when one was made (reused when the language is the same). */
  how: string;
}

/**
 * The language of a page nobody named and whose document says nothing (an uploaded image, a
 * scan-only PDF): tesseract's OSD first; OSD needs a page of text and declines a short snippet,
 * so then one probe reading with the CJK languages and English together decides by the script
 * most of its surely read characters are in. Han alone cannot tell Simplified from Traditional: the caller reads both and keeps
 * the surer (`betterOfChinese`).
 */
export async function imageLanguage(reader: OcrReader, image: OcrImage, fallback: string): Promise<ImageLanguage> {
  const unavailable: string[] = [];
  const osd = await withData(() => reader.detectScript(image), unavailable);
  const byOsd = osd && osd.confidence >= MIN_OSD_CONFIDENCE ? scriptLanguage(osd.script) : undefined;
  if (byOsd) return { lang: byOsd, source: 'osd', how: `OSD: ${osd!.script} script (confidence ${osd!.confidence.toFixed(1)})` };
  const probe = await withData(() => reader.recognize(image, { lang: PROBE, segmentation: 'block' }), unavailable);
  // Only surely read words vote: junk off a picture comes in every script.
  const byText = probe && dominantLanguage(probe.words.filter((w) => w.confidence >= SURE_WORD).map((w) => w.text).join(' '));
  if (byText) return { lang: byText, source: 'osd', how: `probe reading with ${PROBE}: ${byText} script` };
  return { lang: fallback, source: 'default', how: unavailable.length > 0 ? `no script found (${unavailable.join('; ')})` : 'no script found' };
}

/**
 * Runs a detection step; language data the deployment lacks (TESSDATA_DIR without osd, say)
 * makes the step unavailable, noted in `unavailable`, rather than failing the page: the page is
 * then read with the default language, and the log says why.
 */
export async function withData<T>(step: () => Promise<T>, unavailable: string[]): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof OcrError && error.code === 'language_data_missing') {
      unavailable.push(error.message);
      return undefined;
    }
    throw error;
  }
}

/** Of two readings, the one with more confidently read characters. */
export function surer(a: OcrPage, b: OcrPage): OcrPage {
  return readingScore(b) > readingScore(a) ? b : a;
}
