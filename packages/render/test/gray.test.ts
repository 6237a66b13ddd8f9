import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { rgbaToGray } from '../src/gray.js';

describe('rgbaToGray', () => {
  it('weights red, green and blue as BT.601, whatever the alignment of the pixels', () => {
    const pixels = [255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255];
    const expected = [255, 0, 76, 149, 28, 18];
    expect([...rgbaToGray(new Uint8Array(pixels), 3, 2)]).toEqual(expected);
    // Starting at byte 1 of its buffer: no 32-bit view possible.
    const shifted = new Uint8Array(pixels.length + 1);
    shifted.set(pixels, 1);
    expect([...rgbaToGray(shifted.subarray(1), 3, 2)]).toEqual(expected);
  });

  it('matches the per-pixel formula on any image: white runs, mixed quads, sizes not divisible by four', () => {
    const reference = (rgba: Uint8Array, count: number) =>
      Array.from({ length: count }, (_, i) => (rgba[i * 4]! * 77 + rgba[i * 4 + 1]! * 150 + rgba[i * 4 + 2]! * 29) >> 8);
    const pixel = fc.oneof(fc.constant([255, 255, 255, 255]), fc.constant([0, 0, 0, 255]), fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.array(pixel, { minLength: 1, maxLength: 60 }), (width, list) => {
        const height = Math.ceil(list.length / width);
        const rgba = new Uint8Array(width * height * 4).fill(255);
        list.forEach((p, i) => rgba.set(p, i * 4));
        expect([...rgbaToGray(rgba, width, height)]).toEqual(reference(rgba, width * height));
      }),
    );
  });

  it('refuses a buffer shorter than the image', () => {
    expect(() => rgbaToGray(new Uint8Array(15), 2, 2)).toThrow(RangeError);
  });
});
