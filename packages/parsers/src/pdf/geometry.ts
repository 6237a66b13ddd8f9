import type { BBox } from '@readpack/reading-package';

export const width = (b: BBox): number => b[2] - b[0];
export const height = (b: BBox): number => b[3] - b[1];
export const centerY = (b: BBox): number => (b[1] + b[3]) / 2;

export function union(boxes: readonly BBox[]): BBox {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of boxes) {
    x0 = Math.min(x0, b[0]);
    y0 = Math.min(y0, b[1]);
    x1 = Math.max(x1, b[2]);
    y1 = Math.max(y1, b[3]);
  }
  return [x0, y0, x1, y1];
}

/** Length of the overlap of two intervals (0 when apart). */
export function overlap(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

/** Rounded to hundredths of a point: boxes in the package need no more precision. */
export function roundBox(b: BBox): BBox {
  return [round2(b[0]), round2(b[1]), round2(b[2]), round2(b[3])];
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** The middle value (upper middle for an even count), or undefined for no values. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
