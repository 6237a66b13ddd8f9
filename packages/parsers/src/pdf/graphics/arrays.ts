/**
 * Type guards for what pdfjs puts in operator arguments. They avoid `instanceof`: pdfjs's fake
 * worker may run in another realm (Jest's VM contexts do this), whose Float32Array is not ours.
 */

const tagOf = (value: unknown): string => Object.prototype.toString.call(value);

/** A plain array or a typed array of numbers (paths are Float32Arrays, matrices either). */
export function isNumberList(value: unknown): value is ArrayLike<number> {
  if (Array.isArray(value)) return true;
  return ArrayBuffer.isView(value) && /^\[object (Float(32|64)|U?Int(8|16|32)|Uint8Clamped)Array\]$/u.test(tagOf(value));
}

export function isByteArray(value: unknown): value is Uint8Array | Uint8ClampedArray {
  const tag = tagOf(value);
  return ArrayBuffer.isView(value) && (tag === '[object Uint8Array]' || tag === '[object Uint8ClampedArray]');
}
