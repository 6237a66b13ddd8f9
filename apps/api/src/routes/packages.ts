import { Readable } from 'node:stream';
import { Router, type Request, type Response } from 'express';
import { isSmallPackage, jsonChunks, type AssetEntry, type PackageManifest } from '@readpack/package-store';
import type { ApiContext } from '../context.js';
import { baseUrl } from '../http/base-url.js';
import { contentDisposition } from '../http/content-disposition.js';
import { ApiError, notFound } from '../http/errors.js';
import { tenantOf } from '../tenant.js';
import { sanitizeFilename } from '../uploads/filenames.js';
import { findJob } from './status.js';

/**
 * The reading package of a done job, and its assets. An asset id is `<packageId>.<sha256>`: the
 * bytes are shared by content address, but access goes through a package the caller can see.
 */
export function packagesRouter(ctx: ApiContext): Router {
  const router = Router();

  /**
   * The manifest of a done job's package, read in its turn (PackageReads: an answer holds the whole
   * package until it is sent); undefined when the client left while it waited.
   */
  const donePackage = async (req: Request, res: Response): Promise<PackageManifest | undefined> => {
    const record = await findJob(ctx, req, String(req.params.jobId));
    if (record.status !== 'done' || !record.result) {
      throw new ApiError(409, 'package_not_ready', `The job is ${record.status}; its package exists once it is done.`, {
        status: record.status,
        phase: record.phase,
        ...(record.error ? { jobError: record.error } : {}),
      });
    }
    if (!(await ctx.packageReads.turn(record.result.size, res))) return undefined;
    const manifest = await ctx.storage.packages.read(record.result.packageId);
    if (!manifest) throw notFound('package_not_found', 'The package has expired.');
    return manifest;
  };

  router.get('/api/files/job/:jobId/package', async (req, res) => {
    const manifest = await donePackage(req, res);
    if (!manifest) return;
    const body = withUrls(manifest, baseUrl(req, ctx.config.http.publicBaseUrl));
    res.set('Cache-Control', 'private, no-cache');
    if (isSmallPackage(manifest)) res.json(body);
    else streamJson(res, body);
  });

  router.get('/api/files/job/:jobId/markdown', async (req, res) => {
    const manifest = await donePackage(req, res);
    if (!manifest) return;
    res
      .set({ 'Cache-Control': 'private, no-cache', 'Content-Type': 'text/markdown; charset=utf-8', 'X-Content-Type-Options': 'nosniff' })
      .send(absoluteAssetLinks(manifest.markdown, baseUrl(req, ctx.config.http.publicBaseUrl)));
  });

  router.get('/api/assets/:assetId', async (req, res) => {
    const [packageId, sha256, extra] = String(req.params.assetId).split('.');
    // The package's small index, never its manifest: refusing another tenant must cost what
    // refusing a missing id costs (no timing oracle, no way to load the disk for the owner).
    const index = packageId && sha256 && extra === undefined ? await ctx.storage.packages.readIndex(packageId) : null;
    const asset = index?.tenant === tenantOf(req) ? index.assets.find((a) => a.sha256 === sha256) : undefined;
    if (!asset) throw notFound('asset_not_found', 'No such asset, or it has expired.');
    const etag = `"${asset.sha256}"`;
    const mediaType = safeMediaType(asset.mediaType);
    res.set({
      ETag: etag,
      'Cache-Control': 'private, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': contentDisposition(INLINE_TYPES.includes(mediaType) ? 'inline' : 'attachment', assetFilename(asset)),
    });
    if (req.get('if-none-match') === etag) {
      res.status(304).end();
      return;
    }
    const { assetDelivery, assetUrlTtlSeconds } = ctx.config.storage;
    if (assetDelivery === 'presigned' && ctx.storage.blobs.signedUrl) {
      // Signed only now, after the tenant check; short-lived, so the redirect itself is not cached.
      const url = await ctx.storage.blobs.signedUrl(asset.sha256, {
        ttlSeconds: assetUrlTtlSeconds,
        contentType: mediaType,
        contentDisposition: String(res.get('Content-Disposition')),
        cacheControl: 'private, max-age=31536000, immutable',
      });
      res.set('Cache-Control', 'private, no-store').redirect(302, url);
      return;
    }
    res.set({ 'Content-Type': mediaType, 'Content-Length': String(asset.size) });
    const stream = ctx.storage.blobs.read(asset.sha256);
    stream.on('error', (error) => res.destroy(error));
    stream.pipe(res);
  });

  return router;
}

/**
 * `res.json(value)`'s bytes, streamed as they are serialized: a 10,000-page package is never one
 * string and one buffer in the API besides its parsed manifest. No Content-Length and no ETag
 * (res.json computes one over the whole body); a small package is answered by res.json itself.
 */
function streamJson(res: Response, value: object): void {
  res.set('Content-Type', 'application/json; charset=utf-8');
  const stream = Readable.from(jsonChunks(value), { objectMode: false });
  stream.on('error', (error) => res.destroy(error));
  stream.pipe(res);
}

export function assetUrl(base: string, packageId: string, sha256: string): string {
  return `${base}/api/assets/${packageId}.${sha256}`;
}

/** The stored Markdown links assets root-relative (`assetPath`); answers carry this backend's base. */
function absoluteAssetLinks(markdown: string, base: string): string {
  return markdown.replaceAll('](/api/assets/', `](${base}/api/assets/`);
}

function withUrls(manifest: PackageManifest, base: string) {
  const { tenant: _tenant, ...rest } = manifest;
  return {
    ...rest,
    markdown: absoluteAssetLinks(manifest.markdown, base),
    assets: manifest.assets.map((a) => ({ ...a, url: assetUrl(base, manifest.packageId, a.sha256) })),
  };
}

const EXTENSIONS: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp' };
/**
 * Raster images a browser may show in place. Anything else an uploaded document claims to contain
 * (SVG, HTML, "image/x-emf"…) is offered as a download, so it never renders on our origin.
 */
const INLINE_TYPES: readonly string[] = Object.keys(EXTENSIONS);
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** An asset's media type comes from inside an uploaded document: used only when it is a plain `type/subtype`. */
function safeMediaType(mediaType: string): string {
  const lower = mediaType.toLowerCase();
  return MEDIA_TYPE.test(lower) ? lower : 'application/octet-stream';
}

/** The name inside the document (sanitized like an upload's), else the content address; never a path. */
function assetFilename(asset: AssetEntry): string {
  const base = `${asset.sha256.slice(0, 16)}${EXTENSIONS[safeMediaType(asset.mediaType)] ?? '.bin'}`;
  return asset.name ? sanitizeFilename(asset.name) : base;
}
