import type { ErrorRequestHandler, Request } from 'express';
import multer from 'multer';
import { isRedisUnavailableError } from '@readpack/redis';
import type { Logger } from '@readpack/logging';
import { BlobTooLargeError } from '@readpack/package-store';
import type { HttpErrorCode } from '../contract/error-codes.js';

/**
 * An error a client caused or must know about, with its HTTP status and a stable code.
 * Bodies are always `{error: {code, message, ...details}}`; never a stack or a path.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const MULTER_ERRORS: Record<string, [number, HttpErrorCode, string]> = {
  LIMIT_FILE_SIZE: [413, 'file_too_large', 'The file exceeds the upload limit.'],
  LIMIT_FILE_COUNT: [413, 'too_many_files', 'Too many files in one request.'],
  LIMIT_PART_COUNT: [413, 'too_many_parts', 'Too many parts in the multipart body.'],
  LIMIT_FIELD_COUNT: [413, 'too_many_fields', 'Too many form fields.'],
  LIMIT_FIELD_VALUE: [413, 'field_too_large', 'A form field is too large.'],
  LIMIT_FIELD_KEY: [400, 'field_name_too_long', 'A form field name is too long.'],
  LIMIT_UNEXPECTED_FILE: [400, 'unexpected_file_field', 'Unexpected file field.'],
};

/** The one place errors become responses. Unknown errors are logged with their stack and answer 500. */
export function errorHandler(logger: Logger, uploadLimitBytes: number): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (clientWentAway(req) && isAbortLike(error)) {
      // A client that drops its connection mid-body (or stalls until we drop it) is its own doing:
      // nobody is left to answer, and it is no fault of ours worth an error and a stack.
      logger.info('client went away before its request was read', { method: req.method, path: req.path, reason: error instanceof Error ? error.message : String(error) });
      res.destroy();
      return;
    }
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (isRedisUnavailableError(error)) {
      apiError = new ApiError(503, 'state_store_unavailable', 'The job state store is unreachable; retry shortly.', {}, { 'Retry-After': '2' });
    } else if (error instanceof multer.MulterError) {
      const [status, code, message] = MULTER_ERRORS[error.code] ?? [400, 'bad_upload', 'The multipart body could not be read.'];
      const details = code === 'file_too_large' ? { limitBytes: uploadLimitBytes } : error.field ? { field: error.field } : {};
      apiError = new ApiError(status, code, message, details);
    } else if (error instanceof BlobTooLargeError) {
      apiError = new ApiError(413, 'file_too_large', 'The file exceeds the upload limit.', { limitBytes: uploadLimitBytes });
    } else if (isBodyTooLarge(error)) {
      apiError = new ApiError(413, 'body_too_large', 'The request body is larger than this route accepts.', { limitBytes: error.limit });
    } else if (isBodyParseError(error)) {
      apiError = new ApiError(400, 'bad_request', 'The request body could not be read.');
    } else if (error instanceof URIError) {
      // The router's own parameter decoding (http/request-target.ts refuses these paths first).
      logger.info('refused a path that does not decode', { method: req.method, path: req.path.slice(0, 256) });
      apiError = new ApiError(400, 'bad_request', 'The URL path holds a malformed percent-escape.');
    } else if (isMalformedMultipart(error)) {
      apiError = new ApiError(400, 'bad_upload', 'The multipart body could not be read: a part header is malformed or larger than 16 KiB (a very long filename?).');
    } else {
      logger.error('unhandled request error', { method: req.method, path: req.path, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
      apiError = new ApiError(500, 'internal_error', 'Something went wrong on our side.');
    }
    if (apiError.status === 503) logger.warn('state store unavailable', { method: req.method, path: req.path, error: String(error) });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(apiError.status).set(apiError.headers).set('Cache-Control', 'no-store');
    if (!req.complete && !mayDrainUnreadBody(req)) res.set('Connection', 'close');
    res.json({ error: { code: apiError.code, message: apiError.message, ...apiError.details } });
  };
}

/** The connection is gone and the request's body never arrived whole. */
function clientWentAway(req: Request): boolean {
  return !req.complete && (req.destroyed || req.socket.destroyed);
}

/**
 * What reading a body fails with when its connection goes: multer's own errors, Node's stream
 * and socket errors, busboy's cut-off form. Any other error is ours even if the client has left.
 */
function isAbortLike(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    ['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'].includes(code ?? '') ||
    /^(Request (aborted|closed|error)|aborted|Unexpected end of form)$/.test(error.message)
  );
}

/** Bodies up to this size are read and discarded after an early refusal rather than cut off. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * Refused before its body was read (401, 429, 413…). Closing at once makes a client that is still
 * writing a small body see EPIPE instead of our answer (undici's fetch does: it writes the body
 * after the headers), so an untouched body of a declared, small length is left for Node to drain
 * after the response and the connection stays usable. A large, unknown-length or half-read body
 * (a parser stopped midway) gets `Connection: close`: we will not read megabytes only to drop them.
 */
function mayDrainUnreadBody(req: Request): boolean {
  const declared = Number(req.headers['content-length']);
  return !req.readableDidRead && Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES;
}

function isBodyTooLarge(error: unknown): error is { limit: number } {
  return typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'entity.too.large';
}

/** Busboy (under multer) reports broken multipart framing as plain Errors; they are the client's doing. */
function isMalformedMultipart(error: unknown): boolean {
  return error instanceof Error && /^(Malformed part header|Unexpected end of form|Multipart: Boundary not found)/.test(error.message);
}

function isBodyParseError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'type' in error && 'status' in error && (error as { status: number }).status === 400;
}

export function notFound(code: HttpErrorCode, message: string): ApiError {
  return new ApiError(404, code, message);
}
