import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Request, RequestHandler, Router } from 'express';
import type { Queue } from 'bullmq';
import { ApiError } from '../http/errors.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board has no authentication of its own, and its write actions (retry, clean, remove) are
 * plain HTTP calls: it is only reachable through `adminGuard`.
 */
export function bullBoardRouter(queues: Queue[]): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q)), serverAdapter });
  return serverAdapter.getRouter() as Router;
}

/**
 * With ADMIN_TOKEN: `Authorization: Bearer <token>` or HTTP Basic with the token as password.
 * Without: loopback clients only (a developer's own machine), everything else 403.
 */
export function adminGuard(adminToken: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (adminToken === undefined) {
      if (isLoopback(req)) return next();
      return next(new ApiError(403, 'admin_disabled', 'Set ADMIN_TOKEN to use the admin pages from another host.'));
    }
    if (presentedToken(req) !== undefined && safeEqual(presentedToken(req)!, adminToken)) return next();
    res.set('WWW-Authenticate', 'Basic realm="readpack-admin", charset="UTF-8"');
    next(new ApiError(401, 'admin_auth_required', 'Admin credentials required.'));
  };
}

function presentedToken(req: Request): string | undefined {
  const header = req.get('authorization') ?? '';
  const [scheme, value] = header.split(' ', 2);
  if (!value) return undefined;
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  return undefined;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
