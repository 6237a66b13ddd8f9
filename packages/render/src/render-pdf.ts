import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { returnCanvas, takeCanvas } from './canvas-reuse.js';
import { installCjkFallback } from './cjk-fallback.js';
import { MAX_CANVAS_SIDE, chooseDpi, pixelsFor } from './dpi.js';
import { RenderError, errorMessage } from './errors.js';
import { rgbaToGray } from './gray.js';
import { type OpenPdfInput, openPdfDocument, pdfjsCanvasModule } from './pdfjs.js';
import type { RenderedPage } from './types.js';

export const DEFAULT_DPI = 300;
/** 50 MP: an A4 page at 300 dpi is 8.7 MP, so only posters and mis-sized pages come near it. */
export const DEFAULT_MAX_PIXELS = 50_000_000;
/** Below this, body text is too small for OCR to be worth it. */
export const DEFAULT_MIN_DPI = 100;

export interface RenderOptions {
  /** Default 300. */
  dpi?: number;
  /** Default 50 MP. A page that would be larger is rendered at a lower dpi (see `minDpi`). */
  maxPixels?: number;
  /** Lowest dpi `maxPixels` may push a render down to before it fails with `page_too_large`. Default 100. */
  minDpi?: number;
}

export interface RenderPdfPageInput extends OpenPdfInput, RenderOptions {
  /** 0-based. */
  pageIndex: number;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
  return v;
}

/**
 * An open PDF whose pages are rendered one by one: the file is parsed once, however many pages
 * are rendered. Always `close()` it (pdfjs keeps fonts, images and its worker until then).
 */
export class PdfPageRenderer {
  private constructor(private readonly doc: PDFDocumentProxy) {}

  static async open(input: OpenPdfInput): Promise<PdfPageRenderer> {
    return new PdfPageRenderer(await openPdfDocument(input));
  }

  get pageCount(): number {
    return this.doc.numPages;
  }

  /**
   * Renders one page to 8-bit gray pixels. A page whose content stream is damaged is not an
   * error: pdfjs skips what it cannot interpret (unknown operators, undecodable streams or
   * images) and the page comes out partial or blank, as in other viewers. `render_failed` is for
   * pages pdfjs cannot open at all (a broken page tree entry) or a canvas that fails.
   */
  async renderPage(pageIndex: number, options: RenderOptions = {}): Promise<RenderedPage> {
    if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex >= this.doc.numPages) {
      throw new RenderError('page_out_of_range', `page index ${pageIndex} is outside 0..${this.doc.numPages - 1}`, { pageIndex });
    }
    const requestedDpi = positive(options.dpi, DEFAULT_DPI, 'dpi');
    const budget = {
      maxPixels: positive(options.maxPixels, DEFAULT_MAX_PIXELS, 'maxPixels'),
      minDpi: positive(options.minDpi, DEFAULT_MIN_DPI, 'minDpi'),
      maxSide: MAX_CANVAS_SIDE,
    };
    let page: PDFPageProxy;
    try {
      page = await this.doc.getPage(pageIndex + 1);
    } catch (err) {
      throw new RenderError('render_failed', `page ${pageIndex + 1} cannot be read: ${errorMessage(err)}`, { pageIndex, cause: err });
    }
    try {
      // Scale 1 = points, after the page's /Rotate: the orientation a reader sees.
      const { width: pageWidthPt, height: pageHeightPt } = page.getViewport({ scale: 1 });
      const dpi = chooseDpi(pageWidthPt, pageHeightPt, requestedDpi, budget);
      if (dpi === undefined) {
        throw new RenderError(
          'page_too_large',
          `page ${pageIndex + 1} is ${Math.round(pageWidthPt)}×${Math.round(pageHeightPt)} pt: more than ${budget.maxPixels} pixels even at ${Math.min(budget.minDpi, requestedDpi)} dpi`,
          { pageIndex },
        );
      }
      const width = pixelsFor(pageWidthPt, dpi);
      const height = pixelsFor(pageHeightPt, dpi);
      installCjkFallback(pdfjsCanvasModule());
      // From pdfjs's own @napi-rs/canvas copy: a canvas from another copy cannot be drawn into.
      const canvas = takeCanvas(width, height);
      let gray: Buffer;
      try {
        await page.render({ canvas, viewport: page.getViewport({ scale: dpi / 72 }) }).promise;
        gray = rgbaToGray(canvas.data(), width, height);
      } catch (err) {
        throw new RenderError('render_failed', `page ${pageIndex + 1} failed to render: ${errorMessage(err)}`, { pageIndex, cause: err });
      }
      returnCanvas(canvas);
      return { pageIndex, width, height, dpi, pageWidthPt, pageHeightPt, gray };
    } finally {
      // Drops the page's operator list and decoded images: a long document would otherwise keep them all.
      page.cleanup();
    }
  }

  async close(): Promise<void> {
    await this.doc.destroy();
  }
}

async function withDocument<T>(input: OpenPdfInput, use: (renderer: PdfPageRenderer) => Promise<T>): Promise<T> {
  const renderer = await PdfPageRenderer.open(input);
  try {
    return await use(renderer);
  } finally {
    await renderer.close();
  }
}

/** Opens the PDF, renders one page, closes it. To render several pages, use `PdfPageRenderer`. */
export function renderPdfPage(input: RenderPdfPageInput): Promise<RenderedPage> {
  const { pageIndex, dpi, maxPixels, minDpi, ...source } = input;
  return withDocument(source, (renderer) => renderer.renderPage(pageIndex, { dpi, maxPixels, minDpi }));
}

/** The number of pages, or a `RenderError` (`corrupt_document`, `encrypted_document`). */
export function pdfPageCount(source: string | Uint8Array, password?: string): Promise<number> {
  const input: OpenPdfInput = typeof source === 'string' ? { path: source } : { data: source };
  if (password !== undefined) input.password = password;
  return withDocument(input, async (renderer) => renderer.pageCount);
}
