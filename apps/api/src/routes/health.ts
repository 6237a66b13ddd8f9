import { Router } from 'express';
import type { ApiContext } from '../context.js';
import { ApiError } from '../http/errors.js';

export function healthRouter(ctx: ApiContext): Router {
  const router = Router();
  /** Liveness: the process answers. Never touches Redis (a Redis outage must not restart the API). */
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  /**
   * Readiness: both Redis connections answer, the state store's and the queues' (after an outage
   * they reconnect one by one, and an upload needs both).
   */
  router.get('/readyz', async (_req, res) => {
    try {
      await Promise.all([ctx.redis.ping(), ctx.queueRedis.ping()]);
    } catch {
      throw new ApiError(503, 'state_store_unavailable', 'The job state store is unreachable.', {}, { 'Retry-After': '2' });
    }
    res.json({ status: 'ready' });
  });
  return router;
}
