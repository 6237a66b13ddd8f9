import type { BBox } from '@readpack/reading-package';
import type { PDFPageProxy, TextItem, TextStyle } from 'pdfjs-dist/types/src/display/api.js';
import type { PositionedText } from '../graphics-types.js';
import { multiply, type Matrix } from './matrix.js';

/** Used when pdfjs knows no metrics for the font: typical Latin ascent and descent (em). */
const FALLBACK_ASCENT = 0.8;
const FALLBACK_DESCENT = -0.2;

/**
 * The page's text items (`getTextContent()` order, marked-content entries left out) with boxes
 * in top-left page points: from the baseline origin along the text direction by the item's
 * width, and from the font's descent to its ascent across it (vertical writing: down the column
 * by the item's height). Rotated text gets the axis-aligned box around its run.
 */
export async function textItemBoxes(page: PDFPageProxy): Promise<PositionedText[]> {
  const content = await page.getTextContent();
  const viewport = page.getViewport({ scale: 1 });
  const texts: PositionedText[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    texts.push({ text: item.str, bbox: textItemBox(item, content.styles[item.fontName], viewport.transform) });
  }
  return texts;
}

export function textItemBox(item: TextItem, style: TextStyle | undefined, viewportTransform: readonly number[]): BBox {
  const m: Matrix = multiply([1, 0, 0, 1, 0, 0], viewportTransform);
  const [a, b, c, d, e, f] = multiply(m, item.transform as number[]);
  const along = Math.hypot(a, b) || 1;
  const across = Math.hypot(c, d) || 1;
  const fontSize = across;
  const ascent = style?.ascent || FALLBACK_ASCENT;
  const descent = style?.descent || FALLBACK_DESCENT;
  // Unit vectors of the text's advance and "up" directions on the page.
  const [ux, uy] = [a / along, b / along];
  const [vx, vy] = [c / across, d / across];
  // Horizontal runs advance along the baseline by `width`; vertical runs (pdfjs puts their origin
  // one em below the top of the first glyph) advance downwards by `height`, `width` across.
  const rises = style?.vertical ? [fontSize, fontSize - item.height] : [descent * fontSize, ascent * fontSize];
  const corners: [number, number][] = [];
  for (const advance of [0, item.width]) {
    for (const rise of rises) corners.push([e + ux * advance + vx * rise, f + uy * advance + vy * rise]);
  }
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
