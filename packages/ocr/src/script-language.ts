/**
 * Which tesseract language reads a document's script, from what the document says about itself.
 * One language per page, never a `+` set: a set costs a recognition pass per language and, on
 * the test images, read no better than the right single language.
 */

export type ScriptLanguage = 'eng' | 'chi_sim' | 'chi_tra' | 'jpn' | 'kor';

/** CID font orderings (Adobe's character collections) and the language whose glyphs they hold. */
const CID_ORDERINGS: Record<string, ScriptLanguage> = { Japan1: 'jpn', GB1: 'chi_sim', CNS1: 'chi_tra', Korea1: 'kor' };

/** The language of a page's CID fonts: the first ordering that names one (`Adobe-Japan1-6` or `Japan1`). */
export function languageForCidOrderings(orderings: readonly string[] | undefined): ScriptLanguage | undefined {
  for (const ordering of orderings ?? []) {
    for (const [name, lang] of Object.entries(CID_ORDERINGS)) if (ordering.includes(name)) return lang;
  }
  return undefined;
}

/**
 * Characters that only Traditional Chinese writes (their Simplified forms differ): enough of
 * them in Han-only text says chi_tra. A short list of very common characters suffices.
 */
const TRADITIONAL = new Set([...'們個來這說時會對國學與經們過發開關書長見問門車東無為電語義體處點頭實現樣變種樂區歷邊應從產將傳師寫當導給號幾親議讓認識試測圖識別術簡紙線務進運還總']);
const SIMPLIFIED = new Set([...'们个来这说时会对国学与经过发开关书长见问门车东无为电语义体处点头实现样变种乐区历边应从产将传师写当导给号几亲议让认识试测图识别术简纸线务进运还总']);

/**
 * The language a text's own characters point to: kana → jpn, Hangul → kor, Han alone → chi_sim
 * (chi_tra when it has more Traditional-only than Simplified-only characters), Latin → eng.
 * Needs a few characters of a script (`minChars`) before it says anything.
 */
export function languageForText(text: string, minChars = 2): ScriptLanguage | undefined {
  return new ScriptTally().add(text).language(minChars);
}

/**
 * languageForText's counts, added text by text: a document's pages one after the other say what
 * their text joined would (a 10,000-page document's text is never one string for it).
 */
export class ScriptTally {
  private kana = 0;
  private hangul = 0;
  private han = 0;
  private latin = 0;
  private traditional = 0;
  private simplified = 0;

  add(text: string): this {
    for (const c of text) {
      if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(c)) this.kana += 1;
      else if (/\p{Script=Hangul}/u.test(c)) this.hangul += 1;
      else if (/\p{Script=Han}/u.test(c)) {
        this.han += 1;
        if (TRADITIONAL.has(c)) this.traditional += 1;
        if (SIMPLIFIED.has(c)) this.simplified += 1;
      } else if (/\p{Script=Latin}/u.test(c)) this.latin += 1;
    }
    return this;
  }

  language(minChars = 2): ScriptLanguage | undefined {
    // Japanese mixes kana into Han text; a few kana are enough to tell it from Chinese.
    if (this.kana >= 1 && this.kana + this.han >= minChars) return 'jpn';
    if (this.hangul >= minChars) return 'kor';
    if (this.han >= minChars) return this.traditional > this.simplified ? 'chi_tra' : 'chi_sim';
    if (this.latin >= minChars) return 'eng';
    return undefined;
  }
}

/** Tesseract OSD's script names (its unicharset's) → the language that reads them. */
export function scriptLanguage(script: string): ScriptLanguage | undefined {
  switch (script) {
    case 'Japanese':
    case 'Hiragana':
    case 'Katakana':
      return 'jpn';
    case 'Korean':
    case 'Hangul':
      return 'kor';
    case 'Han':
      return 'chi_sim';
    case 'Latin':
      return 'eng';
    default:
      return undefined;
  }
}

/**
 * The language of the script most characters of a reading are in — for a probe reading of an
 * image, where a few CJK characters are as likely junk off a picture or a map as text (unlike
 * a text layer, where `languageForText` lets any CJK text decide). Kana in at least a tenth of
 * the Han and kana characters say Japanese.
 */
export function dominantLanguage(text: string): ScriptLanguage | undefined {
  let latin = 0;
  let hangul = 0;
  let han = 0;
  let kana = 0;
  for (const c of text) {
    if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(c)) kana += 1;
    else if (/\p{Script=Hangul}/u.test(c)) hangul += 1;
    else if (/\p{Script=Han}/u.test(c)) han += 1;
    else if (/\p{Script=Latin}/u.test(c)) latin += 1;
  }
  const cjk = han + kana;
  const most = Math.max(latin, hangul, cjk);
  if (most === 0) return undefined;
  if (most === latin) return 'eng';
  if (most === hangul) return 'kor';
  return kana * 10 >= cjk ? 'jpn' : (languageForText(text) ?? 'chi_sim');
}
