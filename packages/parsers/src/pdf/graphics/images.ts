import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import sharp from 'sharp';
import { embeddedImage } from '../../document.js';
import type { EmbeddedImage } from '../../types.js';
import type { PageFigure } from '../graphics-types.js';
import { unitSquareBox } from './matrix.js';
import { isDecodedImage, type DecodedImage, type ImageDraw } from './operator-walk.js';

/** Icons, bullets and spacer pixels: smaller than this either side (pixels) is not a figure. */
const MIN_IMAGE_PIXELS = 16;
/** Drawn smaller than this either side (points) is decoration, whatever its resolution. */
const MIN_DRAWN_POINTS = 8;

/**
 * Larger pictures are skipped like those over the byte cap: sharp refuses input above ~268 Mpx
 * and compressing one costs seconds of a worker's CPU.
 */
const MAX_IMAGE_PIXELS = 100_000_000;

/** pdfjs `ImageKind`. */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

interface RawPixels {
  pixels: Uint8Array;
  channels: 1 | 3 | 4;
}

/**
 * Figures for the images painted on a page, each stored once as a PNG of the pixels pdfjs
 * decoded (JPEGs included: the API does not hand out a stream's original bytes).
 */
export async function pageFigures(page: PDFPageProxy, pageIndex: number, draws: readonly ImageDraw[], options: { maxImageBytes: number }): Promise<PageFigure[]> {
  const stored = new Map<string, Promise<EmbeddedImage | undefined>>();
  const figures: PageFigure[] = [];
  const { width: pageWidth, height: pageHeight } = page.getViewport({ scale: 1 });
  let inlineCount = 0;
  for (const draw of draws) {
    const bbox = unitSquareBox(draw.ctm);
    if (bbox[2] - bbox[0] < MIN_DRAWN_POINTS || bbox[3] - bbox[1] < MIN_DRAWN_POINTS) continue;
    // Painted off the page (templates, bleed): nobody sees it.
    if (bbox[2] <= 0 || bbox[3] <= 0 || bbox[0] >= pageWidth || bbox[1] >= pageHeight) continue;
    let image: Promise<EmbeddedImage | undefined>;
    if (draw.source.kind === 'object') {
      const { objId } = draw.source;
      image = stored.get(objId) ?? storeImage(objectImage(page, objId), `page${pageIndex + 1}-${objId}.png`, pageIndex, options.maxImageBytes);
      stored.set(objId, image);
    } else {
      inlineCount += 1;
      image = storeImage(Promise.resolve(draw.source.image), `page${pageIndex + 1}-inline${inlineCount}.png`, pageIndex, options.maxImageBytes);
    }
    const asset = await image;
    if (asset) figures.push({ bbox, image: asset });
  }
  return figures;
}

/**
 * The decoded image pdfjs sends for `objId` (`g_…` ids live in the document-wide store). Waits
 * for it: decoding runs apart from the operator list, and a failed decode arrives as null.
 */
function objectImage(page: PDFPageProxy, objId: string): Promise<unknown> {
  const store = objId.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    store.get(objId, resolve);
  });
}

async function storeImage(decoded: Promise<unknown>, name: string, pageIndex: number, maxImageBytes: number): Promise<EmbeddedImage | undefined> {
  const image = await decoded;
  // Null (pdfjs could not decode it) or an ImageBitmap (only where OffscreenCanvas exists, not in Node).
  if (!isDecodedImage(image)) return undefined;
  const { width, height } = image;
  if (width < MIN_IMAGE_PIXELS || height < MIN_IMAGE_PIXELS || width * height > MAX_IMAGE_PIXELS) return undefined;
  const raw = rawPixels(image);
  if (!raw) return undefined;
  let pipeline = sharp(Buffer.from(raw.pixels.buffer, raw.pixels.byteOffset, raw.pixels.byteLength), { raw: { width, height, channels: raw.channels } });
  // Without this sharp widens one-channel input to RGB: three times the bytes for the same picture.
  if (raw.channels === 1) pipeline = pipeline.toColourspace('b-w');
  const png = await pipeline.png().toBuffer();
  // Over the cap the figure is dropped, not the document: the page's text is still worth having.
  if (png.length > maxImageBytes) return undefined;
  return embeddedImage(name, 'image/png', new Uint8Array(png.buffer, png.byteOffset, png.byteLength), { page: pageIndex, width, height });
}

/** 8-bit gray, RGB or RGBA rows, as sharp's raw input wants them; undefined for short data. */
function rawPixels(image: DecodedImage): RawPixels | undefined {
  const { width, height, kind, data } = image;
  const count = width * height;
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (kind === GRAYSCALE_1BPP) {
    const rowBytes = (width + 7) >> 3;
    if (bytes.length < rowBytes * height) return undefined;
    const pixels = new Uint8Array(count);
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        // pdfjs's 1-bit rows are already decoded: a set bit is white.
        pixels[y * width + x] = (bytes[y * rowBytes + (x >> 3)] ?? 0) & (0x80 >> (x & 7)) ? 255 : 0;
      }
    }
    return { pixels, channels: 1 };
  }
  if (kind === RGB_24BPP) {
    return bytes.length >= count * 3 ? { pixels: bytes.subarray(0, count * 3), channels: 3 } : undefined;
  }
  if (kind === RGBA_32BPP) {
    if (bytes.length < count * 4) return undefined;
    return isOpaque(bytes, count) ? { pixels: dropAlpha(bytes, count), channels: 3 } : { pixels: bytes.subarray(0, count * 4), channels: 4 };
  }
  return undefined;
}

function isOpaque(rgba: Uint8Array, count: number): boolean {
  for (let i = 0; i < count; i += 1) if (rgba[i * 4 + 3] !== 255) return false;
  return true;
}

/** An opaque RGBA image as RGB: a quarter fewer bytes to compress, and the same picture. */
function dropAlpha(rgba: Uint8Array, count: number): Uint8Array {
  const rgb = new Uint8Array(count * 3);
  for (let i = 0; i < count; i += 1) {
    rgb[i * 3] = rgba[i * 4] ?? 0;
    rgb[i * 3 + 1] = rgba[i * 4 + 1] ?? 0;
    rgb[i * 3 + 2] = rgba[i * 4 + 2] ?? 0;
  }
  return rgb;
}
