import { createHash } from 'node:crypto';
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
   * A done job's package, read in its turn (PackageReads: an answer holds the whole package until
   * it is sent) — unless the client already has this answer (If-None-Match with its ETag), which
   * is then answered 304 without reading anything. Undefined when there is nothing more to send.
   */
  const donePackage = async (req: Request, res: Response, kind: AnswerKind): Promise<{ manifest: PackageManifest; base: string } | undefined> => {
    const record = await findJob(ctx, req, String(req.params.jobId));
    if (record.status !== 'done' || !record.result) {
      throw new ApiError(409, 'package_not_ready', `The job is ${record.status}; its package exists once it is done.`, {
        status: record.status,
        phase: record.phase,
        ...(record.error ? { jobError: record.error } : {}),
      });
    }
    const base = baseUrl(req, ctx.config.http.publicBaseUrl);
    const etag = answerEtag(kind, record.result.sha256, base);
    res.set({ 'Cache-Control': 'private, no-cache', ETag: etag });
    if (hasAnswer(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return undefined;
    }
    if (!(await ctx.packageReads.turn(record.result.size, res))) return undefined;
    const manifest = await ctx.storage.packages.read(record.result.packageId);
    if (!manifest) {
      res.removeHeader('ETag');
      throw notFound('package_not_found', 'The package has expired.');
    }
    return { manifest, base };
  };

  router.get('/api/files/job/:jobId/package', async (req, res) => {
    const done = await donePackage(req, res, 'package');
    if (!done) return;
    const body = withUrls(done.manifest, done.base);
    if (isSmallPackage(done.manifest)) res.json(body);
    else streamJson(res, body);
  });

  router.get('/api/files/job/:jobId/markdown', async (req, res) => {
    const done = await donePackage(req, res, 'markdown');
    if (!done) return;
    res.set({ 'Content-Type': 'text/markdown; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }).send(absoluteAssetLinks(done.manifest.markdown, done.base));
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
 * string and one buffer in the API besides its parsed manifest. No Content-Length; the ETag is
 * set beforehand (answerEtag). A small package is answered by res.json itself.
 */
function streamJson(res: Response, value: object): void {
  res.set('Content-Type', 'application/json; charset=utf-8');
  const stream = Readable.from(jsonChunks(value), { objectMode: false });
  stream.on('error', (error) => res.destroy(error));
  stream.pipe(res);
}

type AnswerKind = 'package' | 'markdown';

/**
 * Bumped when what an answer is made of changes (withUrls, absoluteAssetLinks): an answer is a
 * function of the stored package (its sha256), the base URL its links carry, and this shape.
 */
const ANSWER_SHAPE = 1;

/** A strong ETag known from the job record alone, so a client that has the answer gets a 304 that reads nothing. */
function answerEtag(kind: AnswerKind, packageSha256: string, base: string): string {
  return `"${kind}-${createHash('sha256').update(`${ANSWER_SHAPE}\n${packageSha256}\n${base}`).digest('base64url').slice(0, 32)}"`;
}

/**
 * If-None-Match as an origin server evaluates it (RFC 9110, 13.1.2): `*`, or a listed tag equal to
 * ours by weak comparison. Not Express's `req.fresh`: it also gives up when the request says
 * `Cache-Control: no-cache`, which fetch() adds to every request that sets If-None-Match itself,
 * and which speaks to caches, not to the origin.
 */
function hasAnswer(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
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
