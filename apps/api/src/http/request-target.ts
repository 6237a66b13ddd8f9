import type { RequestHandler } from 'express';
import type { Logger } from '@readpack/logging';
import { ApiError } from './errors.js';

/**
 * Express decodes a route's parameters while it matches the route, before any of that route's
 * middleware runs: `/api/files/job/%zz` would throw inside the router (a 500 with a stack) before
 * authentication had a say. Paths that do not decode are refused here, in front of every route,
 * but only after `guards` (security headers, CORS, body limit and, under /api, authentication)
 * have run, so that without a key the answer is the usual 401 and an id's shape says nothing.
 */
export function refuseUndecodablePaths(guards: RequestHandler, logger: Logger): RequestHandler {
  return (req, res, next) => {
    // A path without `%` always decodes: the poll's fast lane pays one indexOf.
    if (!req.url.includes('%') || decodes(req.path)) return next();
    guards(req, res, (error?: unknown) => {
      if (error !== undefined) return next(error);
      // The client's mistake, not ours: no stack, and not at error level.
      logger.info('refused a path with a malformed percent-escape', { method: req.method, path: req.path.slice(0, 256) });
      next(new ApiError(400, 'bad_request', 'The URL path holds a malformed percent-escape.'));
    });
  };
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
