import type { RequestHandler } from 'express';
import type { Logger } from '@readpack/logging';

/**
 * An upload may take the whole request timeout (15 min) to arrive, but not to stall: a client
 * that stops sending, or declares more Content-Length than it sends, would otherwise hold its
 * socket (and a spool file) for all that time. While the body is read, the bytes the socket has
 * taken in are checked a few times per `idleMs`; once they stop growing for `idleMs` the
 * connection is closed (the error handler then sees a client that went away, logged at info).
 * The socket's own timeout is left alone: Node uses it for keep-alive between requests.
 */
export function closeStalledBodies(idleMs: number, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const socket = req.socket;
    let bytesRead = socket.bytesRead;
    let progressAt = Date.now();
    const check = setInterval(() => {
      if (socket.bytesRead !== bytesRead) {
        bytesRead = socket.bytesRead;
        progressAt = Date.now();
      } else if (Date.now() - progressAt >= idleMs) {
        stop();
        logger.info('upload body stalled; closing the connection', { method: req.method, path: req.path, idleMs, bytesRead });
        socket.destroy();
      }
    }, Math.max(100, Math.floor(idleMs / 4)));
    check.unref();
    const stop = () => clearInterval(check);
    req.once('end', stop);
    res.once('close', stop);
    next();
  };
}
