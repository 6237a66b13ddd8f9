import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ATTR, markFailed, SPAN, startSpan, withSpan, type Span } from '@readpack/tracing';

/** Each upload request's root span, by its response (the span lives exactly as long as the request). */
const uploadSpans = new WeakMap<Response, Span>();

/**
 * First handler of an upload route: opens the document's root span, which every later span of
 * the request (and, through the queued job's data, of every consumer) hangs below. It ends when
 * the answer is sent or the client goes away. Does nothing when tracing is off.
 */
export function traceUpload(_req: Request, res: Response, next: NextFunction): void {
  const span = startSpan(SPAN.upload, { kind: 'server' });
  if (!span) return next();
  uploadSpans.set(res, span);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.setAttribute(ATTR.httpStatus, res.statusCode);
    if (res.statusCode >= 500 || !res.writableFinished) markFailed(span, undefined);
    span.end();
  };
  res.once('finish', end);
  res.once('close', end);
  withSpan(span, next);
}

/**
 * Wraps the body parser (multer) in `upload.receive`. Its callback fires from stream events,
 * outside the request's async context: the root span is made active again explicitly.
 */
export function traceReceive(parseBody: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const root = uploadSpans.get(res);
    if (!root) return parseBody(req, res, next);
    const span = withSpan(root, () => startSpan(SPAN.uploadReceive, {}));
    void parseBody(req, res, (error?: unknown) => {
      if (error) markFailed(span, error);
      span?.end();
      withSpan(root, () => next(error));
    });
  };
}

/** Runs the route's own work with the request's root span active. */
export function inUploadSpan<T>(res: Response, work: () => T): T {
  return withSpan(uploadSpans.get(res), work);
}
