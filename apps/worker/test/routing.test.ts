import { describe, expect, it } from '@jest/globals';
import type { ParsedPage } from '@readpack/parsers';
import { pagesNeedingOcr } from '../src/ocr-routing.js';

const page = (index: number, text: string): ParsedPage => ({
  index,
  text,
  charCount: text.replace(/\s/g, '').length,
  origin: { parser: 'test', version: '1', engine: 'text-layer' },
});

describe('OCR routing', () => {
  it('routes empty or near-empty pages and junk text layers, keeps real text and punctuation-heavy pages', () => {
    const pages = [
      page(0, 'A real paragraph of text that is long enough to keep its own text layer.'),
      page(1, ''),
      page(2, '12'),
      page(3, `Inhaltsverzeichnis\n1 Topologische Räume ${'. '.repeat(60)} 3`),
      page(4, '\uE001\uE002\uE003\uE004\uFFFD\uFFFD\uE005\uE006\uE007\uE008 some words but mostly glyphs \uE009\uE00A\uE00B\uE00C\uE00D\uE00E\uE00F\uE010\uE011\uE012'),
    ];
    expect(pagesNeedingOcr(pages, 32)).toEqual([1, 2, 4]);
  });
});
