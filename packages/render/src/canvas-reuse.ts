import type { Canvas } from '@napi-rs/canvas';
import { pdfjsCanvasModule } from './pdfjs.js';

/**
 * One canvas per thread, kept between renders of the same pixel size. A fresh 300-dpi A4 canvas
 * is 35 MB of new memory: allocating it and faulting its pages in cost ~10 % of a page's render,
 * every page. pdfjs paints the whole canvas white before drawing (beginDrawing), so nothing of
 * the previous page shows through. A render that fails gives its canvas up (`discard`): its
 * context may be left mid-drawing.
 */
let kept: Canvas | undefined;

export function takeCanvas(width: number, height: number): Canvas {
  const canvas = kept !== undefined && kept.width === width && kept.height === height ? kept : pdfjsCanvasModule().createCanvas(width, height);
  kept = undefined;
  return canvas;
}

/** Keeps `canvas` for the next page of the same size (one canvas at most: memory stays bounded). */
export function returnCanvas(canvas: Canvas): void {
  kept = canvas;
}
