import type { RequestHandler } from 'express';
import { PROCESS_IDENTITY } from '@readpack/logging';

/**
 * Every response names the process that served it: when processes disagree (per-process state, a
 * stale build on one instance), the header is what tells one answer's source from another's.
 */
export const servedBy: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Served-By', PROCESS_IDENTITY);
  next();
};
