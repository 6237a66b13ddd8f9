/**
 * RGBA → 8-bit gray (ITU-R BT.601 weights in fixed point). pdfjs paints on an opaque white
 * background, so alpha is ignored. A plain loop: measured ~4× faster than a raw-in/raw-out sharp
 * pipeline, whose cost is mostly copying the 4-byte pixels in and out; reading each pixel as one
 * 32-bit word (little-endian: R in the low byte) saves another ~25%.
 */
export function rgbaToGray(rgba: Uint8Array, width: number, height: number): Buffer {
  const count = width * height;
  if (rgba.length < count * 4) throw new RangeError(`expected ${count * 4} RGBA bytes, got ${rgba.length}`);
  const gray = Buffer.allocUnsafe(count);
  if (rgba.byteOffset % 4 === 0 && new Uint8Array(new Uint32Array([1]).buffer)[0] === 1) {
    const pixels = new Uint32Array(rgba.buffer, rgba.byteOffset, count);
    for (let i = 0; i < count; i += 1) {
      const p = pixels[i]!;
      gray[i] = ((p & 0xff) * 77 + ((p >>> 8) & 0xff) * 150 + ((p >>> 16) & 0xff) * 29) >> 8;
    }
    return gray;
  }
  for (let i = 0, p = 0; i < count; i += 1, p += 4) {
    gray[i] = (rgba[p]! * 77 + rgba[p + 1]! * 150 + rgba[p + 2]! * 29) >> 8;
  }
  return gray;
}
