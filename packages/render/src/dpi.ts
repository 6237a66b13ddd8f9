/** Whole pixels covering `points` (1/72 inch) at `dpi`; at least one. */
export function pixelsFor(points: number, dpi: number): number {
  return Math.max(1, Math.round((points * dpi) / 72));
}

export interface PixelBudget {
  /** Most pixels (width × height) one render may have. */
  maxPixels: number;
  /** Lowest resolution worth rendering at when the budget forces a lower one. */
  minDpi: number;
  /** Longest side a canvas may have (Skia's raster limit). */
  maxSide: number;
}

/** Skia refuses raster surfaces with a side beyond this. */
export const MAX_CANVAS_SIDE = 32_767;

function fits(widthPt: number, heightPt: number, dpi: number, budget: PixelBudget): boolean {
  const w = pixelsFor(widthPt, dpi);
  const h = pixelsFor(heightPt, dpi);
  return w * h <= budget.maxPixels && Math.max(w, h) <= budget.maxSide;
}

/**
 * The resolution to render a page at: the requested one when it fits the budget, else the highest
 * whole dpi that does, but never below `minDpi` (nor below the request, when that was lower
 * already). Undefined when even that floor does not fit.
 */
export function chooseDpi(widthPt: number, heightPt: number, requestedDpi: number, budget: PixelBudget): number | undefined {
  if (fits(widthPt, heightPt, requestedDpi, budget)) return requestedDpi;
  const floor = Math.min(budget.minDpi, requestedDpi);
  const byArea = 72 * Math.sqrt(budget.maxPixels / (widthPt * heightPt));
  const bySide = (72 * budget.maxSide) / Math.max(widthPt, heightPt);
  // Rounding to whole pixels can push the estimate one step over: walk down until it fits.
  for (let dpi = Math.floor(Math.min(byArea, bySide, requestedDpi)); dpi >= floor; dpi -= 1) {
    if (fits(widthPt, heightPt, dpi, budget)) return dpi;
  }
  return undefined;
}
