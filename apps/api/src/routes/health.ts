import { Router } from 'express';
import type { ApiContext } from '../context.js';
import { ApiError } from '../http/errors.js';

export function healthRouter(ctx: ApiContext): Router {
  const router = Router();
  /** Liveness: the process answers. Never touches Redis (a Redis outage must not restart the API). */
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  /** Readiness: the state store answers. */
  router.get('/readyz', async (_req, res) => {
    try {
      await ctx.redis.ping();
    } catch {
      throw new ApiError(503, 'state_store_unavailable', 'The job state store is unreachable.', {}, { 'Retry-After': '2' });
    }
    res.json({ status: 'ready' });
  });
  return router;
}
