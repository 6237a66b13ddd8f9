import { Router, type Request } from 'express';
import type { JobRecord } from '@readpack/job-state';
import type { ApiContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { isWellFormedId } from '../ids.js';
import { tenantOf } from '../tenant.js';

/**
 * Status polling: one Redis read per request, no cache (a cache per process is the seed bug).
 * 404 only when the record is absent or expired; an unreachable store is a 503 (errors.ts).
 */
export function statusRouter(ctx: ApiContext): Router {
  const router = Router();

  router.get('/api/files/job/:jobId', async (req, res) => {
    const record = await findJob(ctx, req, String(req.params.jobId));
    res.set('Cache-Control', 'no-store').json(jobView(record));
  });

  router.get('/api/files/batch/:batchId', async (req, res) => {
    const batchId = String(req.params.batchId);
    const batch = isWellFormedId('batch', batchId) ? await ctx.state.getBatch(batchId) : null;
    if (!batch || batch.tenant !== tenantOf(req)) throw notFound('batch_not_found', 'No such batch, or it has expired.');
    const { tenant: _tenant, ...view } = batch;
    res.set('Cache-Control', 'no-store').json(view);
  });

  return router;
}

export async function findJob(ctx: ApiContext, req: Request, jobId: string): Promise<JobRecord> {
  const record = isWellFormedId('job', jobId) ? await ctx.state.getJob(jobId) : null;
  if (!record || record.tenant !== tenantOf(req)) throw notFound('job_not_found', 'Job not found or expired.');
  return record;
}

/** The public shape of a job record (no tenant, no internal actor fields beyond updatedBy). */
export function jobView(record: JobRecord) {
  return {
    jobId: record.jobId,
    status: record.status,
    phase: record.phase,
    progress: record.progress,
    ...(record.error ? { error: record.error } : {}),
    ...(record.result ? { result: record.result } : {}),
    source: {
      filename: record.source.filename,
      mediaType: record.source.mediaType,
      size: record.source.size,
      ...(record.source.originalFilename !== undefined ? { originalFilename: record.source.originalFilename } : {}),
    },
    ...(record.batch ? { batch: record.batch } : {}),
    series: record.series,
    ...(record.history ? { history: record.history } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
