import { Router } from 'express';
import type { FleetMetrics } from './fleet-metrics.js';

export const METRICS_PATH = '/metrics';
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics (behind the admin guard, app.ts): this API's cluster-wide HTTP metrics, then the
 * fleet's queues and consumers. If the cluster's sum cannot be had, the scrape fails (500) rather
 * than answering with one worker's share as if it were everything.
 */
export function metricsRouter(httpText: () => Promise<string>, fleet: FleetMetrics): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    const [http, fleetText] = await Promise.all([httpText(), fleet.exposition()]);
    res.set({ 'Content-Type': CONTENT_TYPE, 'Cache-Control': 'no-store' }).send(http + fleetText);
  });
  return router;
}
