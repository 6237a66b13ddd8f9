import type { Request, RequestHandler } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';

/** Latency buckets, seconds: a poll answers in about a millisecond, an upload in up to minutes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * This process's HTTP metrics. One registry per API instance (tests run several in one process);
 * under node:cluster the primary sums the workers' registries (cluster-metrics.ts).
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'readpack_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'readpack_http_request_duration_seconds',
    help: 'Time from the request to the end of the answer, by route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /** First in the chain: counts every answer, refused ones included. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      res.once('finish', () => {
        const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
        this.requests.inc(labels);
        this.latency.observe(labels, (performance.now() - started) / 1000);
      });
      next();
    };
  }
}

/**
 * The route's template, never the raw path: ids in labels would make a series per job. Requests
 * no route handled (404s, refusals before routing, the web app's files, Bull Board) are grouped.
 */
function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  const path = req.originalUrl;
  if (path.startsWith('/admin/')) return '/admin/*';
  if (path.startsWith('/api/')) return '/api/(unmatched)';
  return '(other)';
}
