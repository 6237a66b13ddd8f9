import type { MessagePort } from 'node:worker_threads';
import { openBlobStore, type BlobLocation, type BlobStore } from '@readpack/package-store';
import { signalStarted } from './task-files.js';
import { encodePng, encodePreview, loadImageForOcr, PdfPageRenderer, RenderError, type GrayImage, type RenderErrorCode } from '@readpack/render';

/**
 * Piscina task (see render-pool.ts): one page → pixels for OCR, a page image and a preview, all
 * written to the blob store from this thread so that megabytes of pixels never cross back.
 * Pixels for OCR are a binary PGM: a 15-byte header in front of the gray bytes, which tesseract
 * reads without decoding — PNG encoding would cost more than the render itself.
 */
export interface RenderTask {
  /** Where the page's blobs go: this thread opens its own store there (local directory or S3). */
  blobs: BlobLocation;
  path: string;
  kind: 'pdf-page' | 'image';
  page: number;
  dpi: number;
  maxPixels: number;
  password?: string;
  started?: MessagePort;
}

export interface BlobRef {
  sha256: string;
  size: number;
  mediaType: string;
}

export interface RenderedPageRefs {
  page: number;
  width: number;
  height: number;
  /** 0 for images without density information. */
  dpi: number;
  /** PDF pages: the page size in points; images: the source size in pixels. */
  pageWidth: number;
  pageHeight: number;
  unit: 'pt' | 'px';
  /** Rendered pixels per page unit (dpi/72 for PDF pages, the downscale factor for images). */
  pixelsPerUnit: number;
  pixels: BlobRef;
  image: BlobRef;
  preview: BlobRef;
}

export type RenderOutcome = { ok: true; refs: RenderedPageRefs } | { ok: false; code: RenderErrorCode; message: string };

/** This thread's store, opened once per location (an S3 client keeps its connections warm). */
let store: { key: string; blobs: BlobStore } | undefined;

function storeAt(location: BlobLocation): BlobStore {
  const key = JSON.stringify(location);
  if (store?.key !== key) store = { key, blobs: openBlobStore(location) };
  return store.blobs;
}

/** The last document this thread opened: consecutive pages of one PDF are not parsed again. */
let open: { path: string; renderer: PdfPageRenderer } | undefined;

async function rendererFor(path: string, password: string | undefined): Promise<PdfPageRenderer> {
  if (open?.path === path) return open.renderer;
  await open?.renderer.close();
  open = undefined;
  const renderer = await PdfPageRenderer.open(password === undefined ? { path } : { path, password });
  open = { path, renderer };
  return renderer;
}

export default async function renderTask(task: RenderTask): Promise<RenderOutcome> {
  signalStarted(task.started);
  try {
    const blobs = storeAt(task.blobs);
    let gray: GrayImage;
    let geometry: Pick<RenderedPageRefs, 'pageWidth' | 'pageHeight' | 'unit' | 'pixelsPerUnit'>;
    if (task.kind === 'pdf-page') {
      const renderer = await rendererFor(task.path, task.password);
      const page = await renderer.renderPage(task.page, { dpi: task.dpi, maxPixels: task.maxPixels });
      gray = page;
      geometry = { pageWidth: page.pageWidthPt, pageHeight: page.pageHeightPt, unit: 'pt', pixelsPerUnit: page.dpi / 72 };
    } else {
      const image = await loadImageForOcr(task.path, { maxPixels: task.maxPixels, maxOutputPixels: 40_000_000 });
      gray = image;
      geometry = { pageWidth: image.sourceWidth, pageHeight: image.sourceHeight, unit: 'px', pixelsPerUnit: image.scale };
    }
    const pgm = Buffer.concat([Buffer.from(`P5\n${gray.width} ${gray.height}\n255\n`, 'ascii'), gray.gray]);
    const [pixels, png, preview] = await Promise.all([blobs.putBuffer(pgm), encodePng(gray), encodePreview(gray, 800)]);
    const [image, small] = await Promise.all([blobs.putBuffer(png.data), blobs.putBuffer(preview.data)]);
    return {
      ok: true,
      refs: {
        page: task.page,
        width: gray.width,
        height: gray.height,
        dpi: gray.dpi,
        ...geometry,
        pixels: { ...pixels, mediaType: 'image/x-portable-graymap' },
        image: { ...image, mediaType: png.mediaType },
        preview: { ...small, mediaType: preview.mediaType },
      },
    };
  } catch (error) {
    if (error instanceof RenderError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
