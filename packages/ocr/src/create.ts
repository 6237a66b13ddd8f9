import { OcrEngine, type OcrEngineOptions } from './engine.js';
import { NativeOcrEngine } from './native.js';
import type { OcrReader } from './reader.js';

export const OCR_ENGINES = ['tesseract.js', 'native'] as const;
export type OcrEngineKind = (typeof OCR_ENGINES)[number];

/**
 * The engine OCR_ENGINE names: tesseract.js workers (default) or Debian's tesseract in processes.
 * Native processes end with their batch, so `warmWorkers` and `idleWorkerMs` concern tesseract.js only.
 */
export function createOcrReader(kind: OcrEngineKind, options: OcrEngineOptions = {}): OcrReader {
  if (kind === 'native') {
    return new NativeOcrEngine({
      ...(options.tessdataDir === undefined ? {} : { tessdataDir: options.tessdataDir }),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(options.pageTimeoutMs === undefined ? {} : { pageTimeoutMs: options.pageTimeoutMs }),
      ...(options.languages === undefined ? {} : { languages: options.languages }),
    });
  }
  return new OcrEngine(options);
}
