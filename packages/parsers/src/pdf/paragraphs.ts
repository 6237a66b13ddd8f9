import type { BBox } from '@readpack/reading-package';
import { median, overlap, union } from './geometry.js';
import type { LineFragment } from './layout-types.js';
import { parseListMarker, type ListMarker } from './list-markers.js';
import { joinLines, joinWithSpace } from './text-join.js';

/** A paragraph (or list item) of one page, before it is typed as a block. */
export interface Paragraph {
  text: string;
  bbox: BBox;
  size: number;
  bold: boolean;
  lineCount: number;
  /** Set for a list item: `text` is then the text after the marker. */
  marker?: ListMarker;
}

/** Fragments of one row that the reading order put one after the other join into one line. */
export function mergeRowFragments(ordered: readonly LineFragment[]): LineFragment[] {
  const lines: LineFragment[] = [];
  for (const fragment of ordered) {
    const prev = lines[lines.length - 1];
    if (prev && sameRow(prev, fragment)) lines[lines.length - 1] = mergeTwo(prev, fragment);
    else lines.push({ ...fragment });
  }
  return lines;
}

function sameRow(a: LineFragment, b: LineFragment): boolean {
  const shared = overlap(a.bbox[1], a.bbox[3], b.bbox[1], b.bbox[3]);
  const gap = b.bbox[0] - a.bbox[2];
  // No limit on the gap: the reading order put them next to each other, so they are read as one
  // row (a form's label and value, a table row without rules).
  return shared >= 0.5 * Math.min(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1]) && gap > -0.5 * a.size;
}

function mergeTwo(a: LineFragment, b: LineFragment): LineFragment {
  const main = b.text.length > a.text.length ? b : a;
  return { text: joinWithSpace(a.text, b.text), bbox: union([a.bbox, b.bbox]), size: main.size, bold: a.bold && b.bold, italic: a.italic && b.italic };
}

/**
 * The usual distance from one line's bottom to the next one's in running text (same size, going
 * down by less than 2.5 sizes), or undefined when the page has too few such lines.
 */
export function typicalPitch(lines: readonly LineFragment[]): number | undefined {
  const pitches: number[] = [];
  for (let i = 1; i < lines.length; i += 1) {
    const prev = lines[i - 1]!;
    const line = lines[i]!;
    const dy = line.bbox[3] - prev.bbox[3];
    if (Math.abs(line.size - prev.size) < 0.5 && dy > 0 && dy < 2.5 * line.size) pitches.push(dy);
  }
  return pitches.length >= 3 ? median(pitches) : undefined;
}

interface Building {
  lines: LineFragment[];
  left: number;
  right: number;
  /** Left edge of the lines after the first (a first line may be indented). */
  bodyLeft: number;
  marker?: ListMarker;
  /** Where a list item's text (after the marker) starts. */
  markerX0?: number;
}

/**
 * Groups lines in reading order into paragraphs. A line starts a new paragraph when it moves up
 * or sideways (another column), leaves a wider gap than the page's line pitch, changes size or
 * weight (a heading), starts with a list marker, is indented past the paragraph's left edge (the
 * first line of the next paragraph), or follows a short line ending a sentence.
 */
export function paragraphsOf(lines: readonly LineFragment[], pitch: number | undefined, bodySize = Infinity): Paragraph[] {
  const out: Paragraph[] = [];
  let current: Building | undefined;
  for (const line of lines) {
    const marked = parseListMarker(line.text);
    if (!current || startsParagraph(current, line, pitch, bodySize, marked !== undefined)) {
      if (current) out.push(finish(current));
      current = { lines: [line], left: line.bbox[0], right: line.bbox[2], bodyLeft: Infinity };
      if (marked) {
        current.marker = marked.marker;
        current.markerX0 = line.bbox[0];
      }
    } else {
      current.lines.push(line);
      current.left = Math.min(current.left, line.bbox[0]);
      current.right = Math.max(current.right, line.bbox[2]);
      current.bodyLeft = Math.min(current.bodyLeft, line.bbox[0]);
    }
  }
  if (current) out.push(finish(current));
  return out;
}

function startsParagraph(para: Building, line: LineFragment, pitch: number | undefined, bodySize: number, marked: boolean): boolean {
  const prev = para.lines[para.lines.length - 1]!;
  const size = Math.max(line.size, prev.size);
  if (line.bbox[1] < prev.bbox[1] - 0.5 * size) return true;
  const { left, right } = para;
  if (overlap(left, right, line.bbox[0], line.bbox[2]) <= 0) return true;
  const dy = line.bbox[3] - prev.bbox[3];
  // Display lines (titles, headings) are set with more air between them than running text.
  const spacing = size >= 1.15 * bodySize ? 1.75 : 1.5;
  if (dy > Math.max((pitch ?? 1.2 * size) * 1.3, spacing * size)) return true;
  if (Math.abs(line.size - prev.size) > 0.15 * size) return true;
  if (line.bold !== prev.bold) return true;
  // A word broken at the line's end (`Karten-` / `wechselabbildung`) goes on in this line, however
  // it is indented (list items whose lines run back under their marker, centred captions).
  if (!marked && /\p{L}-$/u.test(prev.text) && /^\p{Ll}/u.test(line.text)) return false;
  if (marked) return true;
  if (para.markerX0 !== undefined) return line.bbox[0] < para.markerX0 + 0.5 * size;
  const bodyLeft = para.lines.length > 1 ? para.bodyLeft : prev.bbox[0];
  // A shorter line centred under the previous one goes on a centred paragraph (a title, a caption).
  const centred = Math.abs(line.bbox[0] + line.bbox[2] - prev.bbox[0] - prev.bbox[2]) < 1.6 * size && line.bbox[2] < prev.bbox[2];
  // A numbered display heading's second line hangs under its title, past the number (`4 Euklidische
  // und nichteuklidische` / `Geometrie`).
  const hanging = para.lines.length === 1 && size >= 1.15 * bodySize && /^\d+(?:\.\d+)*\.?\s/u.test(prev.text) && line.bbox[0] - prev.bbox[0] < 3 * size;
  if (line.bbox[0] > bodyLeft + 0.8 * size && !centred && !hanging) return true;
  return para.lines.length >= 2 && prev.bbox[2] < right - 4 * size && /[.!?:。．」』]$/u.test(prev.text);
}

function finish(para: Building): Paragraph {
  let text = '';
  for (const line of para.lines) text = text === '' ? line.text : joinLines(text, line.text);
  if (para.marker) {
    const parsed = parseListMarker(text);
    if (parsed) text = parsed.rest;
  }
  const chars = (l: LineFragment): number => l.text.length;
  const main = para.lines.reduce((a, b) => (chars(b) > chars(a) ? b : a));
  const paragraph: Paragraph = {
    text,
    bbox: union(para.lines.map((l) => l.bbox)),
    size: main.size,
    bold: para.lines.every((l) => l.bold),
    lineCount: para.lines.length,
  };
  if (para.marker) paragraph.marker = para.marker;
  return paragraph;
}
