import express, { Router, type Express } from 'express';
import { adminGuard, BULL_BOARD_PATH, bullBoardRouter } from './admin/bull-board.js';
import { authenticate } from './auth/authenticate.js';
import type { ApiContext } from './context.js';
import { smallBodiesOnly } from './http/body-limit.js';
import { ApiError, errorHandler } from './http/errors.js';
import { trustedHost } from './http/base-url.js';
import { refuseUndecodablePaths } from './http/request-target.js';
import { adminSecurityHeaders, apiSecurityHeaders, corsPolicy } from './http/security-headers.js';
import { servedBy } from './http/served-by.js';
import { filesRouter, isUploadRequest } from './routes/files.js';
import { docsRouter } from './routes/docs.js';
import { eventsRouter } from './routes/events.js';
import { healthRouter } from './routes/health.js';
import { packagesRouter } from './routes/packages.js';
import { JOB_STATUS_PATH, jobStatus, statusRouter } from './routes/status.js';
import { webAppRouter } from './routes/web.js';
import { METRICS_PATH, metricsRouter } from './metrics/route.js';

/**
 * Middleware order is part of the security model: admin pages have their own headers and
 * credentials and never see CORS; everything else gets strict headers, CORS for the configured
 * origins only, a body limit, and (under /api) a tenant before any handler runs.
 */
export function createApp(ctx: ApiContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Without configured origins CORS answers nothing at all: no middleware on any request.
  const cors = ctx.config.tenancy.corsOrigins.length > 0 ? [corsPolicy(ctx.config.tenancy.corsOrigins)] : [];
  /** What every API request passes before authentication, in this order. */
  const apiGuards = [apiSecurityHeaders(), ...cors, smallBodiesOnly(isUploadRequest)];
  /** Under /api: the Host every URL in an answer is built from is checked, then the tenant. */
  const auth = [...trustedHost(ctx.config.http.trustedHosts), authenticate(ctx.keys)];

  // First: every answer is counted, refusals included.
  app.use(ctx.metrics.http.middleware());
  app.use(servedBy);
  // Before any route with parameters is matched (matching decodes them).
  app.use(refuseUndecodablePaths(Router().use(...apiGuards).use('/api', ...auth), ctx.logger));
  // Polling is by far the most frequent request. Its route is matched first and carries the very
  // same middleware explicitly, so a poll skips the walk through every other layer of the app.
  app.get(JOB_STATUS_PATH, ...apiGuards, ...auth, jobStatus(ctx));

  app.use(BULL_BOARD_PATH, adminSecurityHeaders(), adminGuard(ctx.admin, ctx.keys.devMode), bullBoardRouter(ctx.producer.opsQueues()));
  // Prometheus: guarded like Bull Board (queue names and fleet sizes are operator information).
  app.use(METRICS_PATH, adminSecurityHeaders(), adminGuard(ctx.admin, ctx.keys.devMode), metricsRouter(ctx.metrics.httpText, ctx.metrics.fleet));
  // The web app's page and files carry their own CSP (same-origin scripts); misses fall through to the API's 404.
  app.use(webAppRouter(ctx));
  app.use(...apiGuards);
  app.use(healthRouter(ctx));
  // Before the tenant check: the API's description is public.
  app.use(docsRouter());
  app.use('/api', ...auth);
  app.use(statusRouter(ctx));
  app.use(eventsRouter(ctx));
  app.use(filesRouter(ctx));
  app.use(packagesRouter(ctx));
  app.use((req, _res, next) => next(new ApiError(404, 'route_not_found', `No route for ${req.method} ${req.path}.`)));
  app.use(errorHandler(ctx.logger, ctx.config.limits.maxUploadBytes));
  return app;
}
