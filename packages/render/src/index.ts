export type { GrayImage, RenderedPage, LoadedImage, EncodedImage } from './types.js';
export { RenderError, type RenderErrorCode } from './errors.js';
export {
  PdfPageRenderer,
  renderPdfPage,
  pdfPageCount,
  DEFAULT_DPI,
  DEFAULT_MAX_PIXELS,
  DEFAULT_MIN_DPI,
  type RenderOptions,
  type RenderPdfPageInput,
} from './render-pdf.js';
export type { OpenPdfInput } from './pdfjs.js';
export { encodePng, encodePreview, type PngOptions, type PreviewOptions } from './encode.js';
export { loadImageForOcr, DEFAULT_MAX_IMAGE_PIXELS, type LoadImageOptions } from './load-image.js';
export { installCjkFallback } from './cjk-fallback.js';
export { pdfjsCanvasModule } from './pdfjs.js';
