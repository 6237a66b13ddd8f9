/** 8-bit grayscale pixels, row-major, one byte per pixel, no padding: `gray.length === width * height`. */
export interface GrayImage {
  width: number;
  height: number;
  /** Pixels per inch; 0 when unknown (an image without density metadata). */
  dpi: number;
  gray: Buffer;
}

export interface RenderedPage extends GrayImage {
  /** 0-based. */
  pageIndex: number;
  /**
   * The page size in PDF points (1/72 inch) as displayed: after its /Rotate, from its crop box.
   * `width ≈ pageWidthPt * dpi / 72` (rounded to whole pixels).
   */
  pageWidthPt: number;
  pageHeightPt: number;
}

export interface LoadedImage extends GrayImage {
  /** Detected from the bytes: `png`, `jpeg`, `tiff`, `webp`, `gif`, `bmp`. */
  format: string;
  /** The source's size after EXIF orientation, before any downscaling. */
  sourceWidth: number;
  sourceHeight: number;
  /** `width / sourceWidth` (1 unless the image was downscaled): divide box coordinates by it to map back. */
  scale: number;
}

export interface EncodedImage {
  data: Buffer;
  mediaType: 'image/png' | 'image/webp' | 'image/jpeg';
  width: number;
  height: number;
}
