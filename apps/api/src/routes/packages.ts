import { Router } from 'express';
import type { PackageManifest } from '@readpack/package-store';
import type { ApiContext } from '../context.js';
import { baseUrl } from '../http/base-url.js';
import { ApiError, notFound } from '../http/errors.js';
import { tenantOf } from '../tenant.js';
import { findJob } from './status.js';

/**
 * The reading package of a done job, and its assets. An asset id is `<packageId>.<sha256>`: the
 * bytes are shared by content address, but access goes through a package the caller can see.
 */
export function packagesRouter(ctx: ApiContext): Router {
  const router = Router();

  router.get('/api/files/job/:jobId/package', async (req, res) => {
    const record = await findJob(ctx, req, String(req.params.jobId));
    if (record.status !== 'done' || !record.result) {
      throw new ApiError(409, 'package_not_ready', `The job is ${record.status}; its package exists once it is done.`, {
        status: record.status,
        phase: record.phase,
        ...(record.error ? { jobError: record.error } : {}),
      });
    }
    const manifest = await ctx.storage.packages.read(record.result.packageId);
    if (!manifest) throw notFound('package_not_found', 'The package has expired.');
    res.set('Cache-Control', 'private, no-cache').json(withUrls(manifest, baseUrl(req, ctx.config.http.publicBaseUrl)));
  });

  router.get('/api/assets/:assetId', async (req, res) => {
    const [packageId, sha256, extra] = String(req.params.assetId).split('.');
    const manifest = packageId && sha256 && extra === undefined ? await ctx.storage.packages.read(packageId) : null;
    const asset = manifest?.tenant === tenantOf(req) ? manifest.assets.find((a) => a.sha256 === sha256) : undefined;
    if (!asset) throw notFound('asset_not_found', 'No such asset, or it has expired.');
    const etag = `"${asset.sha256}"`;
    res.set({
      ETag: etag,
      'Cache-Control': 'private, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': `inline; filename="${asset.sha256.slice(0, 16)}${extensionFor(asset.mediaType)}"`,
    });
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    res.type(asset.mediaType).set('Content-Length', String(asset.size));
    const stream = ctx.storage.blobs.read(asset.sha256);
    stream.on('error', (error) => res.destroy(error));
    stream.pipe(res);
  });

  return router;
}

export function assetUrl(base: string, packageId: string, sha256: string): string {
  return `${base}/api/assets/${packageId}.${sha256}`;
}

function withUrls(manifest: PackageManifest, base: string) {
  const { tenant: _tenant, ...rest } = manifest;
  return { ...rest, assets: manifest.assets.map((a) => ({ ...a, url: assetUrl(base, manifest.packageId, a.sha256) })) };
}

const EXTENSIONS: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp' };

function extensionFor(mediaType: string): string {
  return EXTENSIONS[mediaType] ?? '.bin';
}
