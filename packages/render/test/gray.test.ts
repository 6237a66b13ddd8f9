import { describe, expect, it } from '@jest/globals';
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

  it('refuses a buffer shorter than the image', () => {
    expect(() => rgbaToGray(new Uint8Array(15), 2, 2)).toThrow(RangeError);
  });
});
