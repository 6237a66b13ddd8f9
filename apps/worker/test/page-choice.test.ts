import { describe, expect, it } from '@jest/globals';
import type { ParsedPage } from '@readpack/parsers';
import type { DocumentOptions } from '@readpack/queues';
import { choosePageReading, plausibility } from '../src/page-choice.js';
import { pageLanguage } from '../src/ocr-language.js';
import type { StoredOcrPage } from '../src/stages/ocr.js';

const layer = (text: string, cidOrderings?: string[]): ParsedPage => ({
  index: 0,
  text,
  charCount: text.replace(/\s/g, '').length,
  origin: { parser: 'test', version: '1', engine: 'text-layer' },
  ...(cidOrderings ? { cidOrderings } : {}),
});

/** An OCR reading: lines with their confidences; the page's confidence is their mean. */
function ocr(lines: [string, number][]): StoredOcrPage {
  const confidence = lines.length === 0 ? 0 : lines.reduce((s, [, c]) => s + c, 0) / lines.length;
  return {
    page: 0,
    text: lines.map(([t]) => t).join('\n'),
    confidence,
    lines: lines.map(([text, c]) => ({ text, confidence: c, bbox: [0, 0, 1, 1] })),
    unit: 'pt',
    lang: 'eng',
    langSource: 'text',
    blocks: [],
    engine: { parser: 'tesseract.js', version: '7' },
    readBy: 'test',
    rendered: {} as StoredOcrPage['rendered'],
  };
}

const SCAN = [
  ['Quarterly report of the board', 93],
  ['Revenue grew by four percent in the third quarter', 91],
] as [string, number][];

describe('OCR never makes a page worse', () => {
  it('takes OCR for a page without a text layer, and for a stray page number over a scan', () => {
    expect(choosePageReading(layer(''), ocr(SCAN)).chosen).toBe(true);
    expect(choosePageReading(layer('2'), ocr([...SCAN, ['2', 90]]))).toMatchObject({ chosen: true, reason: expect.stringMatching(/^OCR is better/) });
    // OCR missed the page number: two characters may be missing.
    expect(choosePageReading(layer('12'), ocr(SCAN)).chosen).toBe(true);
  });

  it('keeps a right layer against OCR that is unsure, implausible, or adds only unsure lines', () => {
    const right = layer('Invoice 2024-117 paid');
    expect(choosePageReading(right, ocr([['Invoice 2024-117 paid', 96], ['HASBOM Fas RR mabt THKALOA', 38]])).reason).toMatch(/surely read lines/);
    expect(choosePageReading(right, ocr([['Inv0ice', 40], ['| | ~ = |', 30]])).reason).toMatch(/confidence 35 < 60/);
    expect(choosePageReading(right, ocr([['Invoice 2024-117 paid', 90], ['| | i l | = ~ | |', 80]])).reason).toMatch(/plausible/);
    expect(choosePageReading(right, ocr([['Receipt 1999 open and many more words here', 95]])).reason).toMatch(/misses/);
    expect(choosePageReading(right, ocr([['Invoice 2024-117 paid', 97]])).reason).toMatch(/no more than the layer/);
    expect(choosePageReading(right, ocr([])).chosen).toBe(false);
  });

  it("keeps the layer when the fonts declare a CJK collection and OCR reads fewer of its characters", () => {
    const page = layer('東京都 2024', ['Adobe-Japan1-6']);
    const choice = choosePageReading(page, ocr([['Tokyo 2024 annual general meeting of shareholders', 95]]));
    expect(choice).toMatchObject({ chosen: false, reason: expect.stringMatching(/declare Adobe-Japan1-6/) });
  });

  it('does not count junk of a layer without a usable encoding as content OCR must reproduce', () => {
    const junk = layer('\uE001\uE002\uE003\uFFFD\uFFFD\uE005');
    expect(choosePageReading(junk, ocr(SCAN)).chosen).toBe(true);
  });

  it('measures plausibility: pipes, symbols and stray single letters count against it', () => {
    expect(plausibility('Revenue grew by four percent')).toBe(1);
    expect(plausibility('| ~ = |')).toBe(0);
    expect(plausibility('日本語の文字認識')).toBe(1);
    expect(plausibility('x q z w')).toBe(0);
  });
});

describe("a page's OCR language", () => {
  const auto: DocumentOptions = { engine: 'local', ocrLang: 'auto' };
  const pages = (...specs: [string, string[]?][]): ParsedPage[] => specs.map(([text, cid], index) => ({ ...layer(text, cid), index }));

  it('is the requested or the configured default language, said apart', async () => {
    await expect(pageLanguage({ engine: 'local', ocrLang: 'chi_sim' }, pages(['']), 0)).resolves.toEqual({ code: 'chi_sim', source: 'request' });
    await expect(pageLanguage({ engine: 'local', ocrLang: 'eng', ocrLangDefaulted: true }, pages(['']), 0)).resolves.toEqual({ code: 'eng', source: 'default' });
  });

  it('comes from the page fonts first, then its text, then the document, else the pixels decide', async () => {
    await expect(pageLanguage(auto, pages(['Page 3', ['Adobe-Korea1-2']]), 0)).resolves.toEqual({ code: 'kor', source: 'font' });
    await expect(pageLanguage(auto, pages(['第3章 ひらがな']), 0)).resolves.toEqual({ code: 'jpn', source: 'text' });
    await expect(pageLanguage(auto, pages(['', ['CNS1']], ['']), 1)).resolves.toEqual({ code: 'chi_tra', source: 'font' });
    await expect(pageLanguage(auto, pages(['光学识别技术'], ['']), 1)).resolves.toEqual({ code: 'chi_sim', source: 'text' });
    await expect(pageLanguage(auto, pages(['12'], ['']), 1)).resolves.toBeUndefined();
  });
});
