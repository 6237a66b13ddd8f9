import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import type { ApiContext } from '../../apps/api/src/context.js';
import { webAppRouter } from '../../apps/api/src/routes/web.js';
import { servedBy } from '../../apps/api/src/http/served-by.js';
import { startPipeline, testConfig, type Pipeline } from '../harness.js';

/** How the API serves the web app's files: caching, policy, and the hint when there is no build. */

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server });
    });
  });
}

describe('web app files', () => {
  let dist: string;
  let built: { url: string; server: Server };
  let missing: { url: string; server: Server };

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'readpack-web-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), '<!doctype html><title>Readpack</title><script type="module" src="/assets/index-abc123.js"></script>');
    await writeFile(join(dist, 'assets', 'index-abc123.js'), 'console.log(1);');
    const ctx = { config: await testConfig({ API_KEYS: 'tenant-a:key-a-0123456789abcdef' }), keys: { devMode: false } } as unknown as ApiContext;
    const app = (dir: string) => express().use(servedBy).use(webAppRouter(ctx, dir));
    built = await listen(app(dist));
    missing = await listen(app(join(dist, 'not-there')));
  });

  afterAll(async () => {
    built?.server.close();
    missing?.server.close();
    await rm(dist, { recursive: true, force: true });
  });

  it('serves index.html revalidated every time, with a same-origin-only policy, and names the process', async () => {
    for (const path of ['/', '/index.html']) {
      const res = await fetch(`${built.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-served-by')).toBeTruthy();
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  it('serves hashed assets as immutable for a year', async () => {
    const res = await fetch(`${built.url}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-served-by')).toBeTruthy();
  });

  it('tells the page whether a key is needed and what the form may offer', async () => {
    const res = await fetch(`${built.url}/app-config.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { authRequired: boolean; engines: string[] };
    expect(body.authRequired).toBe(true);
    expect(body.engines).toEqual(['local', 'auto']);
  });

  it('answers a short hint at / when the app is not built, as HTML or JSON', async () => {
    const html = await fetch(`${missing.url}/`, { headers: { Accept: 'text/html' } });
    expect(html.status).toBe(404);
    expect(await html.text()).toContain('npm run build');
    const json = await fetch(`${missing.url}/`, { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });
});

describe('the API with the web app mounted', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline({}, { consumers: false });
  });

  afterAll(async () => {
    await pipeline?.stop();
  });

  it('keeps its own policy and 404s for everything else', async () => {
    const missingAsset = await fetch(`${pipeline.api.url}/assets/nope.js`);
    expect(missingAsset.status).toBe(404);
    expect(((await missingAsset.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    expect(missingAsset.headers.get('content-security-policy')).toContain("default-src 'none'");
    const health = await fetch(`${pipeline.api.url}/healthz`);
    expect(health.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});
