import { describe, expect, it } from '@jest/globals';
import type { SlicePage } from '@readpack/parsers';
import { PermanentFailure } from '../src/failures.js';
import { slicePlan, slicesInOrder, textLayerRuns, type SliceDone } from '../src/pdf-slices.js';

const done = (from: number, to: number): SliceDone => ({ ok: true, from, to, blob: { sha256: 'a'.repeat(64), size: 1 }, sizes: [] });

function page(index: number, text: string): SlicePage {
  return { index, fragments: text ? [{ text, bbox: [0, 0, 10, 10], size: 10, bold: false, italic: false }] : [], graphics: [], cidOrderings: [] };
}

describe('slicePlan', () => {
  it('cuts the pages into slices of the given size in page order, covering every page once', () => {
    expect(slicePlan(30, 10)).toEqual([
      { from: 0, to: 10 },
      { from: 10, to: 20 },
      { from: 20, to: 30 },
    ]);
    const plan = slicePlan(1_989, 200);
    expect(plan).toHaveLength(10);
    expect(plan[0]).toEqual({ from: 0, to: 200 });
    expect(plan.at(-1)).toEqual({ from: 1_800, to: 1_989 });
    plan.forEach((range, i) => expect(range.from).toBe(i === 0 ? 0 : plan[i - 1]!.to));
  });

  it('joins a last slice of less than half a slice to the one before it', () => {
    expect(slicePlan(2_050, 200).at(-1)).toEqual({ from: 1_800, to: 2_050 });
    expect(slicePlan(2_100, 200).at(-1)).toEqual({ from: 2_000, to: 2_100 });
    expect(slicePlan(7, 10)).toEqual([{ from: 0, to: 7 }]);
  });

  it('refuses a plan for no pages or slices of no size', () => {
    expect(() => slicePlan(0, 10)).toThrow(RangeError);
    expect(() => slicePlan(10, 0)).toThrow(RangeError);
  });
});

describe('slicesInOrder', () => {
  it('orders the slices by their first page', () => {
    expect(slicesInOrder([done(20, 30), done(0, 10), done(10, 20)], 30).map((s) => s.from)).toEqual([0, 10, 20]);
  });

  it('fails the document on a gap, an overlap or a short end (internal_error)', () => {
    const codeOf = (slices: SliceDone[]): string => {
      try {
        slicesInOrder(slices, 30);
        return 'accepted';
      } catch (error) {
        return error instanceof PermanentFailure ? error.code : String(error);
      }
    };
    expect(codeOf([done(0, 10), done(20, 30)])).toBe('internal_error');
    expect(codeOf([done(0, 15), done(10, 30)])).toBe('internal_error');
    expect(codeOf([done(0, 10), done(10, 20)])).toBe('internal_error');
  });
});

describe('textLayerRuns', () => {
  it('counts the pages that keep their text layer, in runs, leaving pages for OCR out', () => {
    const text = 'a line of text long enough to keep the text layer of its page';
    const pages = [page(40, text), page(41, text), page(42, ''), page(43, 'p. 4'), page(44, text)];
    expect(textLayerRuns(pages, 32)).toEqual([
      { from: 40, to: 42 },
      { from: 44, to: 45 },
    ]);
    expect(textLayerRuns(pages, 0)).toEqual([{ from: 40, to: 45 }]);
  });
});
