import type { BBox } from '@readpack/reading-package';
import { centerY, height, union } from './geometry.js';
import type { LineFragment, TextRun } from './layout-types.js';
import { joinWithSpace } from './text-join.js';

/** A run's centre within this share of the line's height from the line's centre is on that line. */
const SAME_LINE = 0.4;
/** A horizontal gap wider than this share of the font size ends a fragment (a gutter, a tab stop). */
const FRAGMENT_GAP = 0.6;
/** A gap wider than this share of the font size is a word space the text did not spell out. */
const WORD_GAP = 0.15;

/**
 * Groups the runs of a page (in a frame where lines run left to right) into line fragments.
 * Runs are sorted by their vertical centre and swept once: a line keeps the band of the run that
 * started it, so lines never chain into each other (O(n log n) for n runs). Inside a line, runs
 * go left to right and a wide gap starts a new fragment.
 */
export function lineFragments(runs: readonly TextRun[]): LineFragment[] {
  const sorted = runs.filter((r) => r.text.trim() !== '').sort((a, b) => centerY(a.bbox) - centerY(b.bbox) || a.bbox[0] - b.bbox[0]);
  const fragments: LineFragment[] = [];
  let line: TextRun[] = [];
  let bandCenter = 0;
  let bandHeight = 0;
  for (const run of sorted) {
    const c = centerY(run.bbox);
    if (line.length > 0 && Math.abs(c - bandCenter) <= SAME_LINE * Math.max(bandHeight, height(run.bbox))) {
      line.push(run);
      continue;
    }
    if (line.length > 0) fragments.push(...splitLine(line));
    line = [run];
    bandCenter = c;
    bandHeight = height(run.bbox);
  }
  if (line.length > 0) fragments.push(...splitLine(line));
  return fragments;
}

function splitLine(runs: TextRun[]): LineFragment[] {
  runs.sort((a, b) => a.bbox[0] - b.bbox[0]);
  const out: LineFragment[] = [];
  let current: TextRun[] = [];
  let right = -Infinity;
  for (const run of runs) {
    const prev = current[current.length - 1];
    // Fake bold: the same text drawn twice, a fraction of a point apart.
    if (prev && prev.text === run.text && Math.abs(prev.bbox[0] - run.bbox[0]) < 1) continue;
    if (prev && run.bbox[0] - right > FRAGMENT_GAP * Math.max(prev.size, run.size)) {
      out.push(fragmentOf(current));
      current = [];
    }
    current.push(run);
    right = Math.max(right, run.bbox[2]);
  }
  if (current.length > 0) out.push(fragmentOf(current));
  return out;
}

/** Joins runs (sorted left to right) into one fragment; sizes and styles by character count. */
export function fragmentOf(runs: readonly TextRun[]): LineFragment {
  let text = '';
  let right = -Infinity;
  const sizes = new Map<number, number>();
  let bold = 0;
  let italic = 0;
  let chars = 0;
  for (const run of runs) {
    if (text !== '' && run.bbox[0] - right > WORD_GAP * run.size) text = joinWithSpace(text, run.text);
    else text += run.text;
    right = Math.max(right, run.bbox[2]);
    const n = run.text.replace(/\s/gu, '').length;
    const key = Math.round(run.size * 2) / 2;
    sizes.set(key, (sizes.get(key) ?? 0) + n);
    if (run.bold) bold += n;
    if (run.italic) italic += n;
    chars += n;
  }
  let size = runs[0]?.size ?? 0;
  let most = -1;
  for (const [s, n] of sizes) {
    if (n > most) [size, most] = [s, n];
  }
  const bbox: BBox = union(runs.map((r) => r.bbox));
  return { text: text.replace(/\s+/gu, ' ').trim(), bbox, size, bold: chars > 0 && bold / chars > 0.6, italic: chars > 0 && italic / chars > 0.6 };
}
