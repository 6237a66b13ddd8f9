import type { OcrImage } from './image-input.js';
import type { LanguageSpec } from './languages.js';
import type { OcrPage } from './page-result.js';
import type { Segmentation } from './settings.js';

export interface RecognizeOptions {
  /** Default `eng`. */
  lang?: LanguageSpec;
  /** Default `auto` (tesseract's layout analysis). */
  segmentation?: Segmentation;
  /** Resolution hint for tesseract; absent: it estimates the resolution from the text size. */
  dpi?: number;
}

/** What OSD says about an image: tesseract's script name and its confidence. */
export interface ScriptDetection {
  script: string;
  confidence: number;
}

export interface ReaderStats {
  /** Workers (tesseract.js) or processes (native) now, starting or running. */
  workers: number;
  busy: number;
  /** Pages waiting for a place. */
  queued: number;
  /** Workers or processes started so far. */
  started: number;
  /** Workers stopped after idling past the idle period (tesseract.js; native processes end with their batch: 0). */
  idleStopped: number;
}

/**
 * An OCR engine: tesseract.js in worker threads (`OcrEngine`) or Debian's tesseract in child
 * processes (`NativeOcrEngine`). Same input, same pages, same typed errors (`OcrError`).
 */
export interface OcrReader {
  /** Which engine reads, for a page's `origin`: `{parser: 'tesseract.js' | 'tesseract', version}`. */
  readonly origin: { parser: string; version: string };
  recognize(image: OcrImage, options?: RecognizeOptions): Promise<OcrPage>;
  detectScript(image: OcrImage): Promise<ScriptDetection | undefined>;
  warmUp(lang?: LanguageSpec, count?: number): Promise<void>;
  stats(): ReaderStats;
  close(): Promise<void>;
}
