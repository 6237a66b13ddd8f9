import { isJobErrorCode, JOB_ERRORS, type JobErrorCode } from '@readpack/job-state';
import type { OcrErrorCode } from '@readpack/ocr';
import type { DocumentErrorCode } from '@readpack/parsers';
import type { RenderErrorCode } from '@readpack/render';

/**
 * Failure classification, the one place that decides "retry" versus "fail now". Every failure
 * carries a JobErrorCode (the closed union in @readpack/job-state, docs/errors.md), as data:
 * nothing here or downstream reads a code back out of a message. Permanent failures end the job
 * (or page) at once; everything else is retried with the queue's backoff and recorded as
 * `internal_error` (or the TransientFailure's own code) when the attempts run out.
 */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
  constructor(
    readonly code: JobErrorCode,
    message: string = JOB_ERRORS[code].message,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A failure worth retrying that has its own code when attempts run out (e.g. `mineru_unavailable`). */
export class TransientFailure extends Error {
  override readonly name: string = 'TransientFailure';
  constructor(
    readonly code: JobErrorCode,
    message: string = JOB_ERRORS[code].message,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Classified {
  permanent: boolean;
  code: JobErrorCode;
  message: string;
}

/** The OCR engine's errors that no retry can fix, and the job codes they become. */
export const PERMANENT_OCR_ERRORS = {
  language_data_missing: 'ocr_language_data_missing',
  language_data_invalid: 'ocr_language_data_invalid',
  invalid_language: 'ocr_invalid_language',
  invalid_image: 'ocr_invalid_image',
} as const satisfies Partial<Record<OcrErrorCode, JobErrorCode>>;

/** The job code of an OCR engine error no retry can fix; undefined for the others (retried). */
export function permanentOcrCode(code: OcrErrorCode): JobErrorCode | undefined {
  return Object.hasOwn(PERMANENT_OCR_ERRORS, code) ? PERMANENT_OCR_ERRORS[code as keyof typeof PERMANENT_OCR_ERRORS] : undefined;
}

// The codes other packages produce are job codes too: a new one there that is not in JOB_ERRORS
// fails to compile here, before it could reach a record undocumented.
type Includes<Sub extends string, Super extends string> = [Sub] extends [Super] ? true : never;
export const CODE_SETS_ARE_JOB_CODES: [Includes<DocumentErrorCode, JobErrorCode>, Includes<RenderErrorCode, JobErrorCode>] = [true, true];

export function classify(error: unknown): Classified {
  if (error instanceof PermanentFailure) return { permanent: true, code: error.code, message: error.message };
  if (error instanceof TransientFailure) return { permanent: false, code: error.code, message: error.message };
  const code = (error as { code?: unknown } | null)?.code;
  // A parser's DocumentError (in-process use of @readpack/parsers) carries its code as a field.
  if (error instanceof Error && error.name === 'DocumentError' && isJobErrorCode(code)) return { permanent: true, code, message: error.message };
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { permanent: true, code: 'resource_limit', message: 'The document needs more memory than a parser may use (PARSE_MAX_HEAP_MB).' };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { permanent: true, code: 'timeout', message: 'Parsing took longer than allowed (PARSE_TIMEOUT_MS).' };
  }
  return { permanent: false, code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}
