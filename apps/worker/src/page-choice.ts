import type { ParsedPage } from '@readpack/parsers';
import type { StoredOcrPage } from './stages/ocr.js';

export interface PageChoice {
  /** True: OCR's blocks replace the page's text layer. */
  chosen: boolean;
  /** The verdict in words, recorded in the package (`pages[].ocr.reason`). */
  reason: string;
}

/**
 * "OCR never makes a page worse." A page reaches OCR when its text layer is thin or junk
 * (ocr-routing.ts); OCR's reading replaces that layer only when it is better by this rule, else
 * the layer stays and OCR's text is kept beside it (`pages[].ocr.text`):
 *
 *   - no text layer at all: OCR is taken (if it read anything);
 *   - OCR read nothing: the layer stays;
 *   - otherwise OCR must pass every test, the first failed one is the recorded reason:
 *     1. confidence: tesseract's mean word confidence ≥ MIN_CONFIDENCE (60);
 *     2. plausibility: of OCR's non-space characters, letters, digits and CJK characters make up
 *        ≥ MIN_PLAUSIBLE (0.7) once isolated single Latin letters are counted against it —
 *        OCR reading noise or the wrong script yields pipes, symbols and stray letters;
 *     3. declared script: when the page's fonts declare a CJK character collection
 *        (`cidOrderings`: Japan1, GB1, CNS1, Korea1), OCR has at least as many characters of
 *        that script as the layer;
 *     4. reproduction: OCR reproduces the layer's readable content — at most
 *        max(2, 20%) of the layer's readable characters (letters, digits, CJK, as a multiset,
 *        case-folded) are missing from OCR's text. Junk in the layer (U+FFFD, private-use,
 *        unassigned, control characters: a font without a usable encoding) is not content;
 *     5. more, and surely: OCR's lines read with confidence ≥ MIN_CONFIDENCE hold more readable
 *        characters than the layer. Equal text read again is no gain (the layer's characters
 *        are exact), and what OCR adds must itself be read surely: English read off a picture
 *        of Japanese glyphs comes out as plausible-looking letters, but at low line confidence.
 */
export const MIN_CONFIDENCE = 60;
export const MIN_PLAUSIBLE = 0.7;
const MISSING_SHARE = 0.2;
const MISSING_ABSOLUTE = 2;

const READABLE = /[\p{L}\p{N}]/u;
const JUNK = /[\uFFFD\p{Co}\p{Cn}\p{Cc}]/u;

const SCRIPTS: Record<string, RegExp> = {
  Japan1: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
  GB1: /\p{Script=Han}/u,
  CNS1: /\p{Script=Han}/u,
  Korea1: /[\p{Script=Hangul}\p{Script=Han}]/u,
};

function readableChars(text: string): string[] {
  return [...text.normalize('NFKC').toLowerCase()].filter((c) => READABLE.test(c) && !JUNK.test(c));
}

/** Share of plausible characters: readable ones, less isolated single Latin letters (other than a, I). */
export function plausibility(text: string): number {
  const chars = [...text].filter((c) => !/\s/.test(c));
  if (chars.length === 0) return 0;
  const readable = chars.filter((c) => READABLE.test(c)).length;
  const strayLetters = text.split(/\s+/).filter((t) => /^\p{Script=Latin}$/u.test(t) && !/^[aAI]$/.test(t)).length;
  return Math.max(0, readable - strayLetters) / chars.length;
}

/** Characters of the layer (as a multiset) that OCR's text lacks. */
function missingFrom(layer: string[], ocr: string[]): number {
  const counts = new Map<string, number>();
  for (const c of ocr) counts.set(c, (counts.get(c) ?? 0) + 1);
  let missing = 0;
  for (const c of layer) {
    const n = counts.get(c) ?? 0;
    if (n > 0) counts.set(c, n - 1);
    else missing += 1;
  }
  return missing;
}

export function choosePageReading(textLayer: ParsedPage, ocr: StoredOcrPage): PageChoice {
  const ocrText = ocr.text.trim();
  if (textLayer.charCount === 0) return ocrText ? { chosen: true, reason: 'the page has no text layer' } : { chosen: false, reason: 'neither the text layer nor OCR has text' };
  if (!ocrText) return { chosen: false, reason: 'OCR read no text; the text layer is kept' };
  const keep = (why: string): PageChoice => ({ chosen: false, reason: `the text layer is kept: ${why}` });
  if (ocr.confidence < MIN_CONFIDENCE) return keep(`OCR confidence ${ocr.confidence.toFixed(0)} < ${MIN_CONFIDENCE}`);
  const plausible = plausibility(ocrText);
  if (plausible < MIN_PLAUSIBLE) return keep(`only ${(plausible * 100).toFixed(0)}% of OCR's characters are plausible (letters, digits, CJK) < ${MIN_PLAUSIBLE * 100}%`);
  for (const ordering of textLayer.cidOrderings ?? []) {
    const script = Object.entries(SCRIPTS).find(([name]) => ordering.includes(name))?.[1];
    if (!script) continue;
    const inOcr = [...ocrText].filter((c) => script.test(c)).length;
    const inLayer = [...textLayer.text].filter((c) => script.test(c)).length;
    if (inOcr < inLayer) return keep(`the fonts declare ${ordering}, OCR has ${inOcr} characters of that script against the layer's ${inLayer}`);
  }
  const layer = readableChars(textLayer.text);
  const read = readableChars(ocrText);
  const missing = missingFrom(layer, read);
  const allowed = Math.max(MISSING_ABSOLUTE, Math.floor(layer.length * MISSING_SHARE));
  if (missing > allowed) return keep(`OCR misses ${missing} of the layer's ${layer.length} readable characters (at most ${allowed} may be missing)`);
  const sure = ocr.lines.filter((l) => l.confidence >= MIN_CONFIDENCE).flatMap((l) => readableChars(l.text));
  if (sure.length <= layer.length) {
    return keep(`OCR's surely read lines (confidence ≥ ${MIN_CONFIDENCE}) hold ${sure.length} readable characters, no more than the layer's ${layer.length}`);
  }
  return {
    chosen: true,
    reason: `OCR is better: confidence ${ocr.confidence.toFixed(0)}, ${(plausible * 100).toFixed(0)}% plausible, reproduces the layer (${missing} of ${layer.length} characters missing) and reads ${sure.length - layer.length} more surely`,
  };
}
