import sharp, { type Sharp } from 'sharp';
import type { EncodedImage, GrayImage } from './types.js';

function fromGray(image: GrayImage): Sharp {
  if (image.gray.length !== image.width * image.height) {
    throw new RangeError(`gray buffer has ${image.gray.length} bytes, expected ${image.width}×${image.height}`);
  }
  // Without b-w, sharp writes its default sRGB: three identical channels, three times the work.
  return sharp(image.gray, { raw: { width: image.width, height: image.height, channels: 1 } }).toColourspace('b-w');
}

export interface PngOptions {
  /**
   * zlib level 0–9. Default 6: 20–50 ms for a 300-dpi page, files ~30% smaller than level 1;
   * level 9 is 4–10× slower for another 2–7% (measured on the corpus scans).
   */
  compressionLevel?: number;
}

/** Lossless 8-bit grayscale PNG, with the render's dpi recorded (pHYs) when known. */
export async function encodePng(image: GrayImage, options: PngOptions = {}): Promise<EncodedImage> {
  let pipeline = fromGray(image);
  if (image.dpi > 0) pipeline = pipeline.withDensity(image.dpi);
  const data = await pipeline.png({ compressionLevel: options.compressionLevel ?? 6, adaptiveFiltering: false }).toBuffer();
  return { data, mediaType: 'image/png', width: image.width, height: image.height };
}

export interface PreviewOptions {
  /** Default `webp`; `jpeg` for viewers without WebP. */
  format?: 'webp' | 'jpeg';
  /** 1–100, default 70: text stays legible at preview sizes. */
  quality?: number;
}

/** A small lossy preview for a viewer: at most `maxWidth` pixels wide (never enlarged). */
export async function encodePreview(image: GrayImage, maxWidth = 800, options: PreviewOptions = {}): Promise<EncodedImage> {
  if (!Number.isInteger(maxWidth) || maxWidth <= 0) throw new RangeError(`maxWidth must be a positive integer, got ${maxWidth}`);
  const quality = options.quality ?? 70;
  const resized = fromGray(image).resize({ width: maxWidth, withoutEnlargement: true });
  const format = options.format ?? 'webp';
  const encoded = format === 'webp' ? resized.webp({ quality }) : resized.jpeg({ quality, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data, mediaType: format === 'webp' ? 'image/webp' : 'image/jpeg', width: info.width, height: info.height };
}
