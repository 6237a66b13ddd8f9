import { Router, type Request } from 'express';
import multer from 'multer';
import { dedupIdentity, type NewJob } from '@readpack/job-state';
import { PIPELINE_VERSION, type SourceRef } from '@readpack/queues';
import type { ApiContext } from '../context.js';
import { baseUrl } from '../http/base-url.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { tenantOf } from '../tenant.js';
import { acceptFiles } from '../uploads/accept.js';
import { asSpooled, spoolStorage } from '../uploads/spool-storage.js';

/**
 * Uploads. A single upload of content whose job is still running joins that job (active-only
 * dedup; batches always make new jobs). Order matters for durability: the blob is stored, then the job record is created
 * (queued), then the extract job is enqueued. A consumer therefore always finds the record; if
 * enqueueing fails (Redis down) the record is marked failed when possible and the client gets 503.
 */
export function filesRouter(ctx: ApiContext): Router {
  const { config, state, storage, logger } = ctx;
  const router = Router();
  const limits = { fileSize: config.limits.maxUploadBytes, fields: 20, fieldSize: 64 * 1024, parts: config.limits.maxBatchFiles + 20 };
  const storageEngine = spoolStorage(storage.blobs, config.limits.maxUploadBytes);
  const single = multer({ storage: storageEngine, limits: { ...limits, files: 1 } }).single('file');
  const many = multer({ storage: storageEngine, limits: { ...limits, files: config.limits.maxBatchFiles } }).array('files', config.limits.maxBatchFiles);
  const rejectOversized = contentLengthGuard(config.limits.maxUploadBytes * Math.max(1, config.limits.maxBatchFiles));

  router.post('/api/files', rejectOversized, single, async (req, res) => {
    if (!req.file) throw new ApiError(400, 'missing_file', 'Send the document as multipart/form-data field "file".');
    const [source] = await acceptFiles(storage, [asSpooled(req.file)]);
    const tenant = tenantOf(req);
    const job: NewJob = { jobId: newId('job'), tenant, source: toSourceInfo(source!) };
    const identity = dedupIdentity({ tenant, env: config.env, pipelineVersion: PIPELINE_VERSION, options: {}, sha256: source!.sha256 });
    const { created, jobId } = await state.createOrJoin(identity, job);
    if (created) {
      await enqueueOrFail(ctx, job, source!);
      logger.info('job created', { jobId, stage: 'api', tenant, mediaType: source!.mediaType, size: source!.size });
    } else {
      logger.info('upload joined a running job', { jobId, stage: 'api', tenant });
    }
    const statusUrl = `${baseUrl(req, config.http.publicBaseUrl)}/api/files/job/${jobId}`;
    const status = created ? 'queued' : ((await state.getJob(jobId))?.status ?? 'queued');
    res.status(202).location(statusUrl).json({ jobId, status, statusUrl, deduplicated: !created });
  });

  router.post('/api/files/batch', rejectOversized, many, async (req, res) => {
    const uploaded = Array.isArray(req.files) ? req.files.map(asSpooled) : [];
    if (uploaded.length === 0) throw new ApiError(400, 'missing_files', 'Send the documents as repeated multipart/form-data field "files".');
    const sources = await acceptFiles(storage, uploaded);
    const tenant = tenantOf(req);
    const batchId = newId('batch');
    const jobs: NewJob[] = sources.map((source, index) => ({
      jobId: newId('job'),
      tenant,
      source: toSourceInfo(source),
      batch: { batchId, index },
    }));
    const files = jobs.map((job, index) => ({ index, name: sources[index]!.filename, jobId: job.jobId }));
    await state.createBatch({ batchId, tenant, files }, jobs);
    await Promise.all(jobs.map((job, index) => enqueueOrFail(ctx, job, sources[index]!)));
    logger.info('batch created', { batchId, stage: 'api', tenant, files: jobs.length, jobIds: jobs.map((j) => j.jobId) });
    const statusUrl = `${baseUrl(req, config.http.publicBaseUrl)}/api/files/batch/${batchId}`;
    res.status(202).location(statusUrl).json({ batchId, statusUrl, files });
  });

  return router;
}

function toSourceInfo(source: SourceRef): NewJob['source'] {
  return { filename: source.filename, mediaType: source.mediaType, size: source.size, sha256: source.sha256 };
}

async function enqueueOrFail(ctx: ApiContext, job: NewJob, source: SourceRef): Promise<void> {
  try {
    await ctx.producer.add('extract', { jobId: job.jobId, tenant: job.tenant, batchId: job.batch?.batchId, source });
  } catch (error) {
    // Leave no `queued` record that nothing will ever run. If Redis is down this write fails too;
    // the record then expires after QUEUED_TTL_SECONDS.
    await ctx.state
      .fail({ jobId: job.jobId, batchId: job.batch?.batchId }, { code: 'enqueue_failed', message: 'The job could not be queued; upload again.' })
      .catch(() => undefined);
    throw error;
  }
}

/** Refuses a body that announces itself as too large before reading a byte of it. */
function contentLengthGuard(maxBodyBytes: number) {
  const slack = 1024 * 1024; // multipart boundaries and headers
  return (req: Request, _res: unknown, next: (error?: unknown) => void) => {
    const declared = Number(req.get('content-length') ?? 0);
    if (declared > maxBodyBytes + slack) next(new ApiError(413, 'file_too_large', 'The request body exceeds the upload limit.', { limitBytes: maxBodyBytes }));
    else next();
  };
}
