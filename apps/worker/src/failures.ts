import { UnrecoverableError } from 'bullmq';
import { DocumentError } from '@readpack/parsers';

/**
 * Failure classification, the one place that decides "retry" versus "fail now".
 * Permanent failures carry a stable code (docs/errors.md) and become BullMQ UnrecoverableErrors,
 * so no attempt is wasted on a document that cannot parse. Everything else is transient and
 * retried with the queue's backoff; when attempts run out it is recorded as `internal_error`.
 */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A failure worth retrying that has its own code when attempts run out (e.g. `mineru_unavailable`). */
export class TransientFailure extends Error {
  override readonly name: string = 'TransientFailure';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Classified {
  permanent: boolean;
  code: string;
  message: string;
}

export function classify(error: unknown): Classified {
  if (error instanceof PermanentFailure || error instanceof DocumentError) {
    return { permanent: true, code: error.code, message: error.message };
  }
  // A DocumentError thrown in a parser thread arrives as a plain Error carrying its code.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.name === 'DocumentError' && typeof code === 'string') {
    return { permanent: true, code, message: error.message };
  }
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return { permanent: true, code: 'resource_limit', message: 'The document needs more memory than a parser may use (PARSE_MAX_HEAP_MB).' };
  }
  if (error instanceof Error && error.name === 'AbortError') {
    return { permanent: true, code: 'timeout', message: 'Parsing took longer than allowed (PARSE_TIMEOUT_MS).' };
  }
  if (error instanceof UnrecoverableError) {
    // Ours carry their code as `<code>: <message>` (the runner rethrows permanent failures so).
    const coded = /^([a-z_]+): (.*)$/s.exec(error.message);
    return { permanent: true, code: coded?.[1] ?? 'internal_error', message: coded?.[2] ?? error.message };
  }
  if (error instanceof TransientFailure) return { permanent: false, code: error.code, message: error.message };
  return { permanent: false, code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}
