import { describe, expect, it } from '@jest/globals';
import { parsedDocument, type ParsedDocument } from '@readpack/parsers';
import type { FlowBlock } from '@readpack/reading-package';
import { ComplexityTally, looksComplex } from '../src/engine-choice.js';

const origin = { parser: 'pdfjs-dist', version: '5', engine: 'text-layer' as const };
const paragraph = (text: string, page: number): FlowBlock => ({ type: 'paragraph', text, page, origin });

function pdf(texts: string[][]): ParsedDocument {
  const body = texts.flatMap((lines, page) => lines.map((line) => paragraph(line, page)));
  return parsedDocument({ origin, body, pages: texts.map((_, index) => ({ index })) });
}

/** The same document tallied part by part, as the merge of a sliced PDF does. */
function inParts(doc: ParsedDocument, pagesPerPart: number): ComplexityTally {
  const tally = new ComplexityTally();
  const pages = doc.pages ?? [];
  for (let from = 0; from < pages.length; from += pagesPerPart) {
    const part = pages.slice(from, from + pagesPerPart);
    tally.add(part.map((p) => p.text).join('\n\n'), 0, part);
  }
  return tally;
}

const prose = 'A paragraph of ordinary prose that runs on for a while without numbers at its end, as text does.';

describe('the engine rule', () => {
  const cases: [string, string[][], boolean][] = [
    ['prose', Array.from({ length: 6 }, () => [prose, prose, prose]), false],
    ['a page without text', [[prose, prose], [''], [prose]], true],
    ['statement rows ending in amounts', Array.from({ length: 6 }, (_, p) => [prose, `Rent ${p} 1,200.00`, `Water ${p} 31.50`, `Power ${p} 12/2026`]), true],
    ['formulas', Array.from({ length: 4 }, () => ['x = ∑ a_i ≤ ∫ f ± √y ≠ z', prose]), true],
  ];
  it.each(cases)('says the same of %s read whole and tallied in parts', (_, texts, complex) => {
    const doc = pdf(texts);
    expect(looksComplex(doc, 10)).toBe(complex);
    for (const size of [1, 2, 4]) expect(inParts(doc, size).complex(10)).toBe(complex);
  });
});
