import { Router } from 'express';
import { openApiDocument } from '../contract/openapi.js';
import { renderHtmlReference } from '../contract/reference.js';

/** The API's own description: public (it holds no tenant data), built once per process. */
export function docsRouter(): Router {
  const router = Router();
  const html = renderHtmlReference();
  router.get('/api/openapi.json', (_req, res) => {
    res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' }).send(openApiDocument().json);
  });
  router.get('/api/docs', (_req, res) => {
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=300' }).send(html);
  });
  return router;
}
