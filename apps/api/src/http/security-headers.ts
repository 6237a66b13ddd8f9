import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Helmet's headers for the API. Its answers are JSON and document assets, never pages, so the
 * Content-Security-Policy allows nothing at all and sandboxes whatever a browser might still
 * render (an SVG or an HTML "image" inside an uploaded DOCX cannot run script on our origin).
 */
export function apiSecurityHeaders(): RequestHandler {
  return precomputed(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"], sandbox: [] },
      },
    }),
  );
}

/**
 * Helmet's API headers do not depend on the request: record them once at start and set them in
 * one call per response, instead of running helmet's dozen middlewares on every status poll.
 */
function precomputed(middleware: RequestHandler): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  };
  let recorded = false;
  middleware({} as never, recorder as never, () => (recorded = true));
  if (!recorded) throw new Error('helmet did not run synchronously; cannot precompute its headers');
  return (_req, res, next) => {
    res.setHeaders(headers);
    next();
  };
}

/**
 * Helmet's defaults for Bull Board, which is a page with its own scripts and styles from 'self'.
 * `upgrade-insecure-requests` is dropped: an operator on plain HTTP inside a private network
 * would otherwise get a board whose scripts never load.
 */
export function adminSecurityHeaders(): RequestHandler {
  return helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
}

/**
 * CORS for the origins in CORS_ORIGINS, exactly (no wildcard, no credentials: clients send their
 * API key as a header, never a cookie). With none configured no CORS header is ever sent, so
 * browsers refuse every cross-origin call.
 */
export function corsPolicy(origins: string[]): RequestHandler {
  return cors({
    origin: origins.length > 0 ? origins : false,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: ['Location', 'Retry-After', 'X-Served-By', 'ETag', 'Content-Disposition'],
    credentials: false,
    maxAge: 600,
  });
}
