import { readFile } from 'node:fs/promises';
import sharp, { type Metadata, type OutputInfo, type Sharp } from 'sharp';
import { decodeBmpToRgb, isBmp, readBmpHeader } from './bmp.js';
import { RenderError, errorMessage } from './errors.js';
import type { LoadedImage } from './types.js';

/** Formats read for OCR. SVG is not among them: a vector image is rendered on purpose, not OCR'd. */
const RASTER_FORMATS = new Set(['png', 'jpeg', 'tiff', 'webp', 'gif', 'heif']);

export interface LoadImageOptions {
  /**
   * Decompression-bomb guard, default 50 MP: an image with more pixels is refused
   * (`image_too_large`) before its pixels are decoded (sharp's `limitInputPixels`).
   */
  maxPixels?: number;
  /** Downscale (never enlarge) to at most this many pixels; OCR time grows with the pixel count. */
  maxOutputPixels?: number;
}

export const DEFAULT_MAX_IMAGE_PIXELS = 50_000_000;

function tooLarge(width: number, height: number, maxPixels: number): RenderError {
  return new RenderError('image_too_large', `the image is ${width}×${height} = ${width * height} pixels, more than the limit of ${maxPixels}`);
}

function fitWithin(width: number, height: number, maxPixels: number | undefined): { width: number; height: number } {
  if (maxPixels === undefined || width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

interface Decodable {
  pipeline: Sharp;
  format: string;
  /** After EXIF orientation. */
  width: number;
  height: number;
  dpi: number;
}

function fromBmp(bytes: Buffer, maxPixels: number): Decodable {
  const header = readBmpHeader(bytes);
  if (header.width * header.height > maxPixels) throw tooLarge(header.width, header.height, maxPixels);
  const { rgb, width, height } = decodeBmpToRgb(bytes);
  return {
    pipeline: sharp(rgb, { raw: { width, height, channels: 3 }, limitInputPixels: maxPixels }),
    format: 'bmp',
    width,
    height,
    dpi: header.dpi,
  };
}

async function fromSharp(bytes: Buffer, maxPixels: number): Promise<Decodable> {
  // failOn 'error': a scan with a truncated tail still yields its readable part, as viewers show it.
  const pipeline = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' });
  let metadata: Metadata;
  try {
    // Header only, without the pixel limit, so that an oversized image gets its own error below.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    const message = errorMessage(err);
    if (/unsupported image format/i.test(message)) throw new RenderError('unsupported_image', 'not an image format that can be read', { cause: err });
    throw new RenderError('corrupt_document', `the image cannot be read: ${message}`, { cause: err });
  }
  if (!RASTER_FORMATS.has(metadata.format)) throw new RenderError('unsupported_image', `${metadata.format} images are not read for OCR`);
  if (metadata.width * metadata.height > maxPixels) throw tooLarge(metadata.width, metadata.height, maxPixels);
  return {
    pipeline,
    format: metadata.format,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    // libvips reports 72 for files that state no density; only a stated unit means a stated density.
    dpi: metadata.resolutionUnit !== undefined && metadata.density !== undefined ? metadata.density : 0,
  };
}

/**
 * An image file as 8-bit gray pixels for OCR: EXIF orientation applied, transparency flattened
 * onto white, the first page/frame only, optionally downscaled. BMP is decoded with bmp-js (see
 * bmp.ts); everything else with sharp.
 */
export async function loadImageForOcr(source: string | Uint8Array, options: LoadImageOptions = {}): Promise<LoadedImage> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS;
  if (!Number.isFinite(maxPixels) || maxPixels <= 0) throw new RangeError(`maxPixels must be positive, got ${maxPixels}`);
  const bytes = typeof source === 'string' ? await readFile(source) : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  if (bytes.length === 0) throw new RenderError('corrupt_document', 'the image is empty (0 bytes)');
  const input = isBmp(bytes) ? fromBmp(bytes, maxPixels) : await fromSharp(bytes, maxPixels);
  const target = fitWithin(input.width, input.height, options.maxOutputPixels);
  let pipeline = input.pipeline.autoOrient().flatten({ background: '#ffffff' }).grayscale();
  if (target.width !== input.width || target.height !== input.height) {
    pipeline = pipeline.resize({ width: target.width, height: target.height, fit: 'fill' });
  }
  let output: { data: Buffer; info: OutputInfo };
  try {
    output = await pipeline.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new RenderError('corrupt_document', `the image cannot be decoded: ${errorMessage(err)}`, { cause: err });
  }
  const { data, info } = output;
  if (info.channels !== 1) throw new Error(`expected 1 gray channel after conversion, got ${info.channels}`);
  const scale = info.width / input.width;
  return {
    width: info.width,
    height: info.height,
    dpi: input.dpi * scale,
    gray: data,
    format: input.format,
    sourceWidth: input.width,
    sourceHeight: input.height,
    scale,
  };
}
