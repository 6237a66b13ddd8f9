export type OcrErrorCode =
  /** A language's traineddata file is not where the engine looks (see `tessdataDir`). */
  | 'language_data_missing'
  /** A language's traineddata file is there but damaged. */
  | 'language_data_invalid'
  /** A language code that is not `[A-Za-z0-9_]+` (it becomes part of a file name). */
  | 'invalid_language'
  /** The image given cannot be recognised (size mismatch, unreadable bytes). */
  | 'invalid_image'
  /** Tesseract failed on this page. */
  | 'recognition_failed'
  /** A tesseract worker thread could not start or died. */
  | 'worker_failed'
  /** A page ran past `pageTimeoutMs`; its worker was terminated. */
  | 'timeout'
  /** `close()` was called before the page finished. */
  | 'engine_closed';

export class OcrError extends Error {
  override readonly name = 'OcrError';
  readonly code: OcrErrorCode;

  constructor(code: OcrErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** tesseract.js rejects with strings, not Errors. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
