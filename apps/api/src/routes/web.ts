import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { ApiContext } from '../context.js';

/**
 * The web app (apps/web, built by Vite into apps/web/dist) at `/`. The API only serves its files:
 * nothing here imports the app or a worker, and without a build `/` answers a short hint while
 * every /api route works as before. Same path from src/ (tests) and dist/ (npm start).
 */
export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * The page's policy: scripts, styles and connections from this origin only (Vite emits no inline
 * script or style), images also from `blob:` (figures are fetched with the API key and shown as
 * object URLs), never framed.
 */
const pageSecurityHeaders: RequestHandler = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'blob:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
});

/** OCR languages the form offers (Debian's packages that `npm start` installs). */
const OCR_LANGS = ['eng', 'chi_sim', 'eng+chi_sim'];

export function webAppRouter(ctx: ApiContext, distDir: string = DEFAULT_WEB_DIST): Router {
  const router = Router();
  const indexFile = join(distDir, 'index.html');

  /** What the form may offer here; public like the page itself (it says whether a key is needed, not which). */
  router.get('/app-config.json', pageSecurityHeaders, (_req, res) => {
    res.set('Cache-Control', 'no-store').json({
      authRequired: !ctx.keys.devMode,
      engines: ctx.config.mineru.url ? ['local', 'auto', 'mineru'] : ['local', 'auto'],
      defaultEngine: ctx.config.engine.default,
      defaultOcrLang: ctx.config.ocr.defaultLang,
      ocrLangs: OCR_LANGS,
      maxBatchFiles: ctx.config.limits.maxBatchFiles,
      maxUploadBytes: ctx.config.limits.maxUploadBytes,
    });
  });

  // The entry page names the current hashed assets: always revalidated, never served stale.
  router.get(['/', '/index.html'], pageSecurityHeaders, (_req, res, next) => {
    // Checked per request (one stat per page load): a build made after start is picked up.
    if (!existsSync(indexFile)) {
      notBuilt(res);
      return;
    }
    res.sendFile(indexFile, { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (error) => {
      if (error) next(error);
    });
  });

  router.get('/favicon.svg', pageSecurityHeaders, express.static(distDir, { index: false, maxAge: '1d', fallthrough: true }));

  // Vite puts a content hash in every name under assets/: a changed file is a new URL.
  router.use(
    '/assets',
    pageSecurityHeaders,
    express.static(join(distDir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '1y',
      fallthrough: true,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  return router;
}

const NOT_BUILT = 'The web app is not built (apps/web/dist is missing): run `npm run build`. The HTTP API under /api works without it.';

function notBuilt(res: express.Response): void {
  res.status(404).set('Cache-Control', 'no-store');
  res.format({
    'text/html': () => {
      res.send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Readpack</title><p>${NOT_BUILT.replace('`npm run build`', '<code>npm run build</code>')}</p></html>`);
    },
    default: () => {
      res.json({ error: { code: 'route_not_found', message: NOT_BUILT } });
    },
  });
}
