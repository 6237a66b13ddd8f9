import { OcrError } from './errors.js';

/** 8-bit gray pixels, row-major (what @readpack/render produces). */
export interface GrayPixels {
  gray: Uint8Array;
  width: number;
  height: number;
}

/** Raw gray pixels, or the bytes of an encoded image file (PNG, JPEG, BMP, PNM, TIFF). */
export type OcrImage = GrayPixels | Uint8Array;

/**
 * What tesseract.js is handed. Raw pixels become a binary PGM: a 15-byte header in front of the
 * pixels, which Leptonica reads without decoding anything, where a PNG would cost an encode here
 * and a decode in the worker. Encoded files pass through untouched.
 */
export function toTesseractInput(image: OcrImage): Buffer {
  if (image instanceof Uint8Array) {
    if (image.length === 0) throw new OcrError('invalid_image', 'the image is empty (0 bytes)');
    return Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  }
  const { gray, width, height } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new OcrError('invalid_image', `invalid image size ${width}×${height}`);
  }
  if (gray.length !== width * height) {
    throw new OcrError('invalid_image', `${gray.length} gray bytes for a ${width}×${height} image (expected ${width * height})`);
  }
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), gray]);
}
