import type { PixelBox } from './page-result.js';

/** A box in PDF points (1/72 inch), origin at the page's top-left as displayed, y downwards. */
export interface PointBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Pixel box of a page rendered at `dpi` → points on that page. The origin stays top-left (as
 * the render's `pageWidthPt`/`pageHeightPt` describe the displayed page); for PDF user space
 * (origin bottom-left) use `y' = pageHeightPt - y`.
 */
export function pixelBoxToPoints(bbox: PixelBox, dpi: number): PointBox {
  if (!Number.isFinite(dpi) || dpi <= 0) throw new RangeError(`dpi must be positive, got ${dpi}`);
  const k = 72 / dpi;
  return { x0: bbox.x0 * k, y0: bbox.y0 * k, x1: bbox.x1 * k, y1: bbox.y1 * k };
}
