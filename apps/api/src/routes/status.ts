import { Router, type Request, type RequestHandler } from 'express';
import type { JobRecord } from '@readpack/job-state';
import type { ApiContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { isWellFormedId } from '../ids.js';
import { tenantOf } from '../tenant.js';

/*
 * Status polling: one Redis read per request, no cache (a cache per process is the seed bug).
 * 404 only when the record is absent or expired; an unreachable store is a 503 (errors.ts).
 * Another tenant's job answers exactly like a missing one.
 */

/** Polled by every client of every job: the app gives this route a fast lane (app.ts). */
export const JOB_STATUS_PATH = '/api/files/job/:jobId';

/**
 * The document is stored ready to send (JobView, built by the job-state scripts on every change):
 * a poll costs one HMGET and no JSON work.
 */
export function jobStatus(ctx: ApiContext): RequestHandler {
  return async (req, res) => {
    const jobId = String(req.params.jobId);
    const view = isWellFormedId('job', jobId) ? await ctx.state.getJobView(jobId) : null;
    if (!view || view.tenant !== tenantOf(req)) throw jobNotFound();
    // Straight to Node: with one string, end() writes head and body in a single syscall, where
    // res.send would first copy the body into a Buffer and write the two separately.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Length', Buffer.byteLength(view.json)); // for HEAD too
    res.end(view.json);
  };
}

export function statusRouter(ctx: ApiContext): Router {
  const router = Router();

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
  if (!record || record.tenant !== tenantOf(req)) throw jobNotFound();
  return record;
}

const jobNotFound = () => notFound('job_not_found', 'Job not found or expired.');
