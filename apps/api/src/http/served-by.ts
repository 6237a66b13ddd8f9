import type { RequestHandler } from 'express';
import { PROCESS_IDENTITY } from '@readpack/logging';

/** Every response names the process that served it: the seed incident was invisible without it. */
export const servedBy: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Served-By', PROCESS_IDENTITY);
  next();
};
