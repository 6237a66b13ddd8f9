/**
 * Why a page or image could not be turned into pixels. The codes of whole-document problems
 * (`corrupt_document`, `encrypted_document`) match the job failure codes in docs/errors.md, so a
 * stage can pass them through; the others are specific to one page or image.
 */
export type RenderErrorCode =
  | 'corrupt_document'
  | 'encrypted_document'
  | 'page_out_of_range'
  | 'page_too_large'
  | 'render_failed'
  | 'unsupported_image'
  | 'image_too_large';

export class RenderError extends Error {
  override readonly name = 'RenderError';
  readonly code: RenderErrorCode;
  /** The 0-based page the error is about, for page-level errors. */
  readonly pageIndex: number | undefined;

  constructor(code: RenderErrorCode, message: string, options: { pageIndex?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.pageIndex = options.pageIndex;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
