import { afterAll, describe, expect, it, jest } from '@jest/globals';
import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { fixturePath, textPng, type TestScript } from '@readpack/testing';
import { dominantLanguage, languageForCidOrderings, languageForText, NativeOcrEngine, ScriptTally, OcrEngine, readPage, scriptLanguage, type GrayPixels, type OcrReader } from '@readpack/ocr';

jest.setTimeout(180_000);

/** The pixels the pipeline hands OCR for an uploaded image: flattened on white, 8-bit gray (loadImageForOcr). */
async function grayOf(png: Buffer): Promise<GrayPixels> {
  const { data, info } = await sharp(png).flatten({ background: '#ffffff' }).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { gray: data, width: info.width, height: info.height };
}

/** Rows holding dark pixels: the glyph height of a one-line image. */
function inkHeight(image: GrayPixels): number {
  let top = image.height;
  let bottom = -1;
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      if (image.gray[y * image.width + x]! < 128) {
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
  }
  return bottom - top + 1;
}

const engines: [string, OcrReader][] = [
  ['tesseract.js', new OcrEngine()],
  ['native', new NativeOcrEngine()],
];
afterAll(async () => {
  for (const [, engine] of engines) await engine.close();
});

const compact = (s: string) => s.replace(/\s+/g, '');

describe.each(engines)('%s', (_, engine) => {
  it("detects a page's script with OSD (osd.traineddata)", async () => {
    const detection = await engine.detectScript(readFileSync(fixturePath('testocr.png')));
    expect(detection?.script).toBe('Latin');
  });

  it.each([
    ['jpn', ['日本語の文字認識', 'ひらがなとカタカナ']],
    ['chi_tra', ['繁體中文測試', '光學識別技術']],
    ['kor', ['안녕하세요 세계', '한국어 문자 인식']],
  ] as [TestScript, string[]][])('reads %s text with its language', async (lang, lines) => {
    const page = await readPage(engine, await grayOf(await textPng(lines, { script: lang, size: 40 })), { lang });
    expect(page.text).toBe(lines.join('\n'));
    expect(page.paragraphs.length).toBeGreaterThan(0);
  });

  it('reads the one-line 320×180 chi_sim image (glyphs ≈ 28 px) exactly; the automatic layout alone loses 2 of its 6 characters', async () => {
    const image = await grayOf(await textPng(['我们把图片变'], { script: 'chi_sim', size: 30, width: 320, height: 180 }));
    expect(Math.abs(inkHeight(image) - 28)).toBeLessThanOrEqual(1);
    // The cause: page segmentation `auto` (psm 3, which Readpack forced on every page) splits
    // or drops characters of a short CJK line; tesseract.js's own default, one block, reads it.
    const autoOnly = await readPage(engine, image, { lang: 'chi_sim', snippetRescue: false });
    expect(compact(autoOnly.text)).not.toBe('我们把图片变');
    const page = await readPage(engine, image, { lang: 'chi_sim' });
    expect(page.text).toBe('我们把图片变');
  });
});

describe('language from what a document says', () => {
  it('maps CID orderings to languages', () => {
    expect(languageForCidOrderings(['Adobe-Japan1-6'])).toBe('jpn');
    expect(languageForCidOrderings(['GB1'])).toBe('chi_sim');
    expect(languageForCidOrderings(['CNS1'])).toBe('chi_tra');
    expect(languageForCidOrderings(['Korea1'])).toBe('kor');
    expect(languageForCidOrderings(['Identity'])).toBeUndefined();
    expect(languageForCidOrderings(undefined)).toBeUndefined();
  });

  it('maps the scripts of text to languages', () => {
    expect(languageForText('日本語の文字認識')).toBe('jpn');
    expect(languageForText('한국어 문자 인식')).toBe('kor');
    expect(languageForText('光学识别技术')).toBe('chi_sim');
    expect(languageForText('繁體中文測試')).toBe('chi_tra');
    expect(languageForText('Annual report')).toBe('eng');
    expect(languageForText('12')).toBeUndefined();
  });

  it('says of text tallied piece by piece what it says of the pieces joined (a large document is tallied by page)', () => {
    const pages = ['Vorwort', '繁體', '中文測試 個', '', 'ab'];
    const tally = new ScriptTally();
    for (const page of pages) tally.add(page);
    expect(tally.language()).toBe(languageForText(pages.join('\n')));
    expect(tally.language()).toBe('chi_tra');
    // One kana anywhere makes Han text Japanese, whichever page it is on.
    expect(tally.add('ひ').language()).toBe('jpn');
  });

  it('lets the script of most characters decide a probe reading, where a few CJK characters may be junk', () => {
    expect(dominantLanguage('Bokale a Tarnose Lehuntze Attuni 戸')).toBe('eng');
    expect(dominantLanguage('日本語の文字認識')).toBe('jpn');
    expect(dominantLanguage('光學識別技術 OK')).toBe('chi_tra');
    expect(dominantLanguage('안녕하세요 세계 OK')).toBe('kor');
  });

  it("maps OSD's script names to languages", () => {
    expect(['Japanese', 'Hangul', 'Han', 'Latin', 'Cyrillic'].map(scriptLanguage)).toEqual(['jpn', 'kor', 'chi_sim', 'eng', undefined]);
  });
});
