import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Request, RequestHandler, Router } from 'express';
import type { Queue } from 'bullmq';
import { presentedSecret } from '../auth/credentials.js';
import { ApiError } from '../http/errors.js';
import { adminRoleOf, setAdminRole, type AdminCredentials } from './admin-role.js';

export const BULL_BOARD_PATH = '/admin/queues';

const READ_METHODS: readonly string[] = ['GET', 'HEAD'];

/**
 * Bull Board has no authentication of its own, and its write actions (retry, clean, remove,
 * pause, obliterate…) are plain HTTP calls: it is only reachable through `adminGuard`. Admins get
 * a full board; viewers a second board whose queues are all in Bull Board's `readOnlyMode` (the
 * UI hides write actions and the API refuses them), behind a guard that answers 405 to any write
 * method before Bull Board sees it, so a route Bull Board forgets to protect stays protected.
 */
export function bullBoardRouter(queues: Queue[]): RequestHandler {
  const full = board(queues, false);
  const readOnly = board(queues, true);
  return (req, res, next) => {
    if (adminRoleOf(req) === 'admin') return full(req, res, next);
    if (!READ_METHODS.includes(req.method)) {
      res.set('Allow', 'GET, HEAD');
      return next(new ApiError(405, 'admin_read_only', 'Viewer credentials are read-only.'));
    }
    readOnly(req, res, next);
  };
}

function board(queues: Queue[], readOnlyMode: boolean): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode })), serverAdapter });
  return serverAdapter.getRouter() as Router;
}

/**
 * Admin pages need an admin credential, never a tenant key: `ADMIN_TOKEN` (full access) or
 * `ADMIN_VIEWER_TOKEN` (read only), as `Authorization: Bearer` or HTTP Basic with the token as the
 * password. With neither set, loopback clients get in only in single-tenant dev mode (a
 * developer's own machine); a multi-tenant deployment has no unauthenticated way in, because
 * behind a reverse proxy on the same host every client looks like loopback.
 */
export function adminGuard(credentials: AdminCredentials, devMode: boolean): RequestHandler {
  return (req, res, next) => {
    if (!credentials.configured) {
      if (devMode && isLoopback(req)) {
        setAdminRole(req, 'admin');
        return next();
      }
      return next(new ApiError(403, 'admin_disabled', 'Set ADMIN_TOKEN to use the admin pages.'));
    }
    const secret = presentedSecret(req, { basic: true });
    const role = secret === undefined ? undefined : credentials.roleFor(secret);
    if (role) {
      setAdminRole(req, role);
      return next();
    }
    res.set('WWW-Authenticate', 'Basic realm="readpack-admin", charset="UTF-8"');
    next(new ApiError(401, 'admin_auth_required', 'Admin credentials required.'));
  };
}

function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
