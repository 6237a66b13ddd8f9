import type { RequestHandler } from 'express';
import type { Logger } from '@readpack/logging';

/**
 * An upload may take the whole request timeout (15 min) to arrive, but not to stall: a client
 * that stops sending, or declares more Content-Length than it sends, would otherwise hold its
 * socket (and a spool file) for all that time. The socket's idle timer runs while the body is
 * read; past `idleMs` without a byte the connection is closed (the error handler then sees a
 * client that went away, logged at info) and the timer is dropped once the body is complete.
 */
export function closeStalledBodies(idleMs: number, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const socket = req.socket;
    const stalled = () => {
      logger.info('upload body stalled; closing the connection', { method: req.method, path: req.path, idleMs, bytesRead: socket.bytesRead });
      socket.destroy();
    };
    const done = () => {
      socket.setTimeout(0);
      socket.off('timeout', stalled);
    };
    socket.setTimeout(idleMs);
    socket.on('timeout', stalled);
    req.once('end', done);
    res.once('close', done);
    next();
  };
}
