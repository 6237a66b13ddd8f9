import express, { type Request, type RequestHandler } from 'express';

/** No route but the uploads takes a body worth having; anything bigger than this is refused. */
export const SMALL_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * A body limit for every route that is not an upload (uploads have multer's limits): the body is
 * read and counted by body-parser, chunked or not, and a request past the limit answers 413
 * instead of being drained for as long as a client cares to send.
 */
export function smallBodiesOnly(isUpload: (req: Request) => boolean): RequestHandler {
  const read = express.raw({ type: () => true, limit: SMALL_BODY_LIMIT_BYTES });
  // Status polling (the hottest path) declares no body: nothing to read, skip the reader.
  const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  return (req, res, next) => (!hasBody(req) || isUpload(req) ? next() : read(req, res, next));
}
