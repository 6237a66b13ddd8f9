import type { GrayPixels, OcrImage } from './image-input.js';

/**
 * A linear contrast stretch of gray pixels: the 1st percentile becomes black, the 99th white
 * (what sharp's `normalise()` does). Coloured or faded ink on white comes out black: tesseract's
 * own binarisation then has a clear gap to cut, which `bench:ocr` measured to help. An image
 * that already spans the range is returned as it is.
 */
export function normalizeContrast(image: GrayPixels, lowerPercent = 1, upperPercent = 99): GrayPixels {
  const { gray } = image;
  const histogram = new Uint32Array(256);
  for (let i = 0; i < gray.length; i += 1) histogram[gray[i]!]! += 1;
  const at = (percent: number): number => {
    const target = (gray.length * percent) / 100;
    let seen = 0;
    for (let v = 0; v < 256; v += 1) {
      seen += histogram[v]!;
      if (seen > target) return v;
    }
    return 255;
  };
  const low = at(lowerPercent);
  const high = at(upperPercent);
  if (high <= low || (low === 0 && high === 255)) return image;
  const table = new Uint8Array(256);
  for (let v = 0; v < 256; v += 1) table[v] = Math.max(0, Math.min(255, Math.round(((v - low) * 255) / (high - low))));
  const out = new Uint8Array(gray.length);
  for (let i = 0; i < gray.length; i += 1) out[i] = table[gray[i]!]!;
  return { gray: out, width: image.width, height: image.height };
}

const PGM_HEADER = /^P5\s+(\d+)\s+(\d+)\s+255\s/;

/** The pixels of an 8-bit binary PGM (what the render stage stores), or undefined for other bytes. */
export function grayFromPgm(bytes: Uint8Array): GrayPixels | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('latin1');
  const match = PGM_HEADER.exec(head);
  if (!match) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const offset = match[0].length;
  if (bytes.byteLength - offset !== width * height) return undefined;
  return { gray: bytes.subarray(offset), width, height };
}

/** Gray pixels (raw or a PGM) stretched; other encoded images (PNG, JPEG…) as they are. */
export function normalizeImage(image: OcrImage): OcrImage {
  if (!(image instanceof Uint8Array)) return normalizeContrast(image);
  const gray = grayFromPgm(image);
  return gray ? normalizeContrast(gray) : image;
}
