import type { BBox } from '@readpack/reading-package';
import { isNumberList } from './arrays.js';

/** A PDF affine matrix `[a, b, c, d, e, f]`: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Matrix = [number, number, number, number, number, number];

/** `outer × inner`: applies `inner` first (what the `cm` operator does to the CTM). */
export function multiply(outer: Matrix, inner: readonly number[]): Matrix {
  const [a, b, c, d, e, f] = outer;
  const [a2 = 1, b2 = 0, c2 = 0, d2 = 1, e2 = 0, f2 = 0] = inner;
  return [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
}

export function applyToPoint(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The axis-aligned box of the unit square through `m`: where an image lands on the page. */
export function unitSquareBox(m: Matrix): BBox {
  const corners = [applyToPoint(m, 0, 0), applyToPoint(m, 1, 0), applyToPoint(m, 0, 1), applyToPoint(m, 1, 1)];
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export function isMatrix(value: unknown): value is ArrayLike<number> {
  return isNumberList(value) && value.length === 6;
}
