import express, { type Express } from 'express';
import { adminGuard, BULL_BOARD_PATH, bullBoardRouter } from './admin/bull-board.js';
import type { ApiContext } from './context.js';
import { ApiError, errorHandler } from './http/errors.js';
import { servedBy } from './http/served-by.js';
import { filesRouter } from './routes/files.js';
import { healthRouter } from './routes/health.js';
import { packagesRouter } from './routes/packages.js';
import { statusRouter } from './routes/status.js';

export function createApp(ctx: ApiContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(servedBy);
  app.use(healthRouter(ctx));
  app.use(filesRouter(ctx));
  app.use(statusRouter(ctx));
  app.use(packagesRouter(ctx));
  app.use(BULL_BOARD_PATH, adminGuard(ctx.config.http.adminToken), bullBoardRouter(ctx.producer.all()));
  app.use((req, _res, next) => next(new ApiError(404, 'route_not_found', `No route for ${req.method} ${req.path}.`)));
  app.use(errorHandler(ctx.logger, ctx.config.limits.maxUploadBytes));
  return app;
}
