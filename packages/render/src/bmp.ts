import { createRequire } from 'node:module';
import { RenderError, errorMessage } from './errors.js';

/**
 * BMP, which sharp (libvips) cannot read, is decoded with bmp-js: the decoder tesseract.js itself
 * uses for BMP, so it is installed already. bmp-js assumes the 40-byte BITMAPINFOHEADER and reads
 * the palette and pixels straight after it; BMPs written with the larger V4/V5 headers (GIMP,
 * ImageMagick, 32-bit images) are therefore rewritten into that layout first.
 */
interface BmpJs {
  decode(data: Buffer): { data: Buffer; width: number; height: number };
}

const require = createRequire(import.meta.url);
let bmpJs: BmpJs | undefined;

const FILE_HEADER = 14;
const INFO_HEADER = 40;
const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;

export interface BmpHeader {
  width: number;
  height: number;
  bitsPerPixel: number;
  compression: number;
  /** 0 when the file does not say. */
  dpi: number;
}

export function isBmp(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d;
}

function unsupported(message: string): RenderError {
  return new RenderError('unsupported_image', `BMP: ${message}`);
}

interface Layout extends BmpHeader {
  headerSize: number;
  pixelOffset: number;
  colors: number;
}

function readLayout(bytes: Buffer): Layout {
  if (bytes.length < FILE_HEADER + INFO_HEADER) throw new RenderError('corrupt_document', 'BMP: the file is shorter than its header');
  const headerSize = bytes.readUInt32LE(14);
  // 12 = the OS/2 BITMAPCOREHEADER with 16-bit sizes, which bmp-js cannot read.
  if (headerSize < INFO_HEADER) throw unsupported(`${headerSize}-byte (OS/2) headers are not supported`);
  const width = bytes.readInt32LE(18);
  const height = Math.abs(bytes.readInt32LE(22));
  const bitsPerPixel = bytes.readUInt16LE(28);
  const compression = bytes.readUInt32LE(30);
  const pixelsPerMetre = bytes.readUInt32LE(38);
  if (width <= 0 || height <= 0) throw new RenderError('corrupt_document', `BMP: invalid size ${width}×${height}`);
  if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) throw unsupported(`${bitsPerPixel} bits per pixel`);
  if (![BI_RGB, BI_RLE8, BI_RLE4, BI_BITFIELDS].includes(compression)) throw unsupported(`compression ${compression} (embedded JPEG/PNG)`);
  return {
    width,
    height,
    bitsPerPixel,
    compression,
    dpi: Math.round(pixelsPerMetre * 0.0254),
    headerSize,
    pixelOffset: bytes.readUInt32LE(10),
    colors: bytes.readUInt32LE(46),
  };
}

export function readBmpHeader(bytes: Buffer): BmpHeader {
  const { width, height, bitsPerPixel, compression, dpi } = readLayout(bytes);
  return { width, height, bitsPerPixel, compression, dpi };
}

/** The same image with a 40-byte header, masks (16-bit bitfields) and palette right after it. */
function toInfoHeaderLayout(bytes: Buffer, layout: Layout): Buffer {
  let compression = layout.compression;
  let masks = Buffer.alloc(0);
  if (compression === BI_BITFIELDS) {
    // Masks sit at the same place in every header version: right after the first 40 bytes.
    const red = bytes.readUInt32LE(54);
    const green = bytes.readUInt32LE(58);
    const blue = bytes.readUInt32LE(62);
    if (layout.bitsPerPixel === 32) {
      // bmp-js reads 32-bit bitfields in a fixed byte order; the usual BGRX masks are plain BI_RGB.
      if (red !== 0xff0000 || green !== 0xff00 || blue !== 0xff) throw unsupported('32-bit bitfields other than BGRX');
      compression = BI_RGB;
    } else if (layout.bitsPerPixel === 16) {
      masks = Buffer.alloc(16);
      masks.writeUInt32LE(red, 0);
      masks.writeUInt32LE(green, 4);
      masks.writeUInt32LE(blue, 8);
    } else {
      throw unsupported(`bitfields with ${layout.bitsPerPixel} bits per pixel`);
    }
  }
  const paletteBytes = layout.bitsPerPixel <= 8 ? (layout.colors || 2 ** layout.bitsPerPixel) * 4 : 0;
  // Only ≤ 8-bit images have a palette, and those never use bitfields.
  const paletteStart = FILE_HEADER + layout.headerSize;
  if (paletteStart + paletteBytes > bytes.length || layout.pixelOffset > bytes.length) {
    throw new RenderError('corrupt_document', 'BMP: the file is shorter than its header says');
  }
  const head = Buffer.from(bytes.subarray(0, FILE_HEADER + INFO_HEADER));
  head.writeUInt32LE(FILE_HEADER + INFO_HEADER + masks.length + paletteBytes, 10);
  head.writeUInt32LE(INFO_HEADER, 14);
  head.writeUInt32LE(compression, 30);
  return Buffer.concat([head, masks, bytes.subarray(paletteStart, paletteStart + paletteBytes), bytes.subarray(layout.pixelOffset)]);
}

/** Decodes to 8-bit RGB (3 bytes per pixel, top row first). The caller checks the size first. */
export function decodeBmpToRgb(bytes: Buffer): { rgb: Buffer; width: number; height: number } {
  const layout = readLayout(bytes);
  const normalized = toInfoHeaderLayout(bytes, layout);
  bmpJs ??= require('bmp-js') as BmpJs;
  let decoded: { data: Buffer; width: number; height: number };
  try {
    decoded = bmpJs.decode(normalized);
  } catch (err) {
    throw new RenderError('corrupt_document', `BMP: cannot decode: ${errorMessage(err)}`, { cause: err });
  }
  const { width, height, data } = decoded;
  const count = width * height;
  const rgb = Buffer.allocUnsafe(count * 3);
  // bmp-js emits A, B, G, R per pixel.
  for (let i = 0, p = 0, o = 0; i < count; i += 1, p += 4, o += 3) {
    rgb[o] = data[p + 3]!;
    rgb[o + 1] = data[p + 2]!;
    rgb[o + 2] = data[p + 1]!;
  }
  return { rgb, width, height };
}
