import { Router, type Request } from 'express';
import multer from 'multer';
import { dedupIdentity, type NewJob } from '@readpack/job-state';
import { PIPELINE_VERSION, readConverter, type DocumentOptions, type ExtractPayload, type SourceRef } from '@readpack/queues';
import { ATTR, inSpan, setActiveAttributes, SPAN } from '@readpack/tracing';
import type { ApiContext } from '../context.js';
import type { BatchAccepted, UploadAccepted } from '../contract/schemas.js';
import { baseUrl } from '../http/base-url.js';
import { ApiError } from '../http/errors.js';
import { closeStalledBodies } from '../http/idle-body.js';
import { inUploadSpan, traceReceive, traceUpload } from '../http/upload-tracing.js';
import { newId } from '../ids.js';
import { tenantOf } from '../tenant.js';
import { inspectFiles, storeFiles, type AcceptedFile } from '../uploads/accept.js';
import { documentOptionsFrom } from '../uploads/document-options.js';
import { takeCallbackUrl, takePassword } from '../uploads/form-fields.js';
import { asSpooled, discard, spoolStorage, type SpooledFile } from '../uploads/spool-storage.js';

export const UPLOAD_PATHS: readonly string[] = ['/api/files', '/api/files/batch'];

/** Multipart requests to the upload routes; any other body has a small limit (http/body-limit.ts). */
export function isUploadRequest(req: Request): boolean {
  // Express matches routes case-insensitively and with a trailing slash; so must this.
  const path = req.path.toLowerCase().replace(/\/+$/, '');
  return req.method === 'POST' && UPLOAD_PATHS.includes(path) && req.is('multipart/form-data') === 'multipart/form-data';
}

const PDF = 'application/pdf';
/** Purpose label of the password's keyed hash in the dedup identity. */
const PASSWORD_IDENTITY = 'dedup:pdf-password';

/** What one upload request asks for, once its body is read and checked. */
interface Intake {
  tenant: string;
  options: DocumentOptions;
  password: string | undefined;
  /** Webhook target of every job of the upload (checked: uploads/form-fields.ts). */
  callbackUrl: string | undefined;
  files: AcceptedFile[];
  jobIds: string[];
  priorities: number[];
}

/**
 * Uploads. The order is the defence: the tenant is known (auth) and one upload counted against its
 * rate before a byte of the body is read; then the files are spooled (size-capped), sniffed (415;
 * also 415 `converter_unavailable` for formats read through LibreOffice when no converter runs),
 * admitted against the tenant's active-job limit (429, all or nothing), and only then stored and
 * turned into records and queue jobs. Any refusal discards the spooled files and gives back the
 * admission. A single upload of content whose job is still running joins that job (active-only
 * dedup; batches always make new jobs). The record is created before the job is enqueued, so a
 * consumer always finds it; if enqueueing fails the record is marked failed when possible.
 */
export function filesRouter(ctx: ApiContext): Router {
  const { config, state, storage, logger, uploadRate } = ctx;
  const router = Router();
  const limits = { fileSize: config.limits.maxUploadBytes, fields: 20, fieldSize: 64 * 1024, parts: config.limits.maxBatchFiles + 20 };
  const storageEngine = spoolStorage(storage.blobs, config.limits.maxUploadBytes);
  // preservePath: busboy would cut the name to its last segment; we keep the client's name as
  // metadata and sanitize it ourselves (uploads/filenames.ts).
  const single = multer({ storage: storageEngine, preservePath: true, limits: { ...limits, files: 1 } }).single('file');
  const many = multer({ storage: storageEngine, preservePath: true, limits: { ...limits, files: config.limits.maxBatchFiles } }).array('files', config.limits.maxBatchFiles);
  const rejectOversized = contentLengthGuard(config.limits.maxUploadBytes * Math.max(1, config.limits.maxBatchFiles));
  const stallGuard = closeStalledBodies(config.http.uploadIdleTimeoutMs, logger);

  router.post('/api/files', traceUpload, rejectOversized, uploadRate.beforeBody(), stallGuard, traceReceive(single), (req, res) => inUploadSpan(res, async () => {
    if (!req.file) throw new ApiError(400, 'missing_file', 'Send the document as multipart/form-data field "file".');
    const intake = await admit(ctx, req, [asSpooled(req.file)]);
    setActiveAttributes({ [ATTR.jobId]: intake.jobIds[0]!, [ATTR.tenant]: intake.tenant, [ATTR.files]: 1 });
    const accepted = intake.files[0]!;
    const job: NewJob = { jobId: intake.jobIds[0]!, tenant: intake.tenant, source: sourceInfo(accepted), callbackUrl: intake.callbackUrl };
    let outcome: { created: boolean; jobId: string } | undefined;
    try {
      const identity = dedupIdentity({
        tenant: intake.tenant,
        env: config.env,
        pipelineVersion: PIPELINE_VERSION,
        // An upload with another callback must get its own job: joining would never call it.
        options: { ...intake.options, password: passwordIdentity(ctx, intake, accepted), callbackUrl: intake.callbackUrl },
        sha256: accepted.source.sha256,
      });
      outcome = await inSpan(SPAN.stateCreate, {}, () => state.createOrJoin(identity, job));
      if (outcome.created) await enqueueOrFail(ctx, job, accepted.source, intake, 0);
    } finally {
      if (!outcome?.created) await ctx.admission.release(intake.tenant, intake.jobIds);
    }
    const { created, jobId } = outcome;
    if (created) logger.info('job created', { jobId, stage: 'api', tenant: intake.tenant, mediaType: accepted.source.mediaType, size: accepted.source.size, priority: intake.priorities[0] });
    else logger.info('upload joined a running job', { jobId, stage: 'api', tenant: intake.tenant });
    const statusUrl = `${baseUrl(req, config.http.publicBaseUrl)}/api/files/job/${jobId}`;
    const status = created ? 'queued' : ((await state.getJob(jobId))?.status ?? 'queued');
    const body: UploadAccepted = { jobId, status, statusUrl, deduplicated: !created };
    res.status(202).location(statusUrl).json(body);
  }));

  router.post('/api/files/batch', traceUpload, rejectOversized, uploadRate.beforeBody(), stallGuard, traceReceive(many), (req, res) => inUploadSpan(res, async () => {
    const uploaded = Array.isArray(req.files) ? req.files.map(asSpooled) : [];
    if (uploaded.length === 0) throw new ApiError(400, 'missing_files', 'Send the documents as repeated multipart/form-data field "files".');
    const intake = await admit(ctx, req, uploaded, () => uploadRate.consume(tenantOf(req), uploaded.length - 1));
    const batchId = newId('batch');
    setActiveAttributes({ [ATTR.batchId]: batchId, [ATTR.tenant]: intake.tenant, [ATTR.files]: uploaded.length });
    const jobs: NewJob[] = intake.files.map((file, index) => ({ jobId: intake.jobIds[index]!, tenant: intake.tenant, source: sourceInfo(file), batch: { batchId, index }, callbackUrl: intake.callbackUrl }));
    const files = jobs.map((job, index) => ({ index, name: job.source.filename, jobId: job.jobId }));
    try {
      await inSpan(SPAN.stateCreate, { attributes: { [ATTR.batchId]: batchId } }, () => state.createBatch({ batchId, tenant: intake.tenant, files }, jobs));
    } catch (error) {
      await ctx.admission.release(intake.tenant, intake.jobIds);
      throw error;
    }
    await Promise.all(jobs.map((job, index) => enqueueOrFail(ctx, job, intake.files[index]!.source, intake, index)));
    logger.info('batch created', { batchId, stage: 'api', tenant: intake.tenant, files: jobs.length, jobIds: jobs.map((j) => j.jobId), priorities: intake.priorities });
    const statusUrl = `${baseUrl(req, config.http.publicBaseUrl)}/api/files/batch/${batchId}`;
    const body: BatchAccepted = { batchId, statusUrl, files };
    res.status(202).location(statusUrl).json(body);
  }));

  return router;
}

/**
 * Everything between "the body is spooled" and "the files are stored": form fields, the files'
 * types, the rest of the rate (`moreRate`, batches), and the tenant's active-job admission, which
 * also yields the jobs' queue priorities. On any refusal nothing is kept.
 */
async function admit(ctx: ApiContext, req: Request, spooled: SpooledFile[], moreRate?: () => Promise<void>): Promise<Intake> {
  const tenant = tenantOf(req);
  let admittedIds: string[] = [];
  try {
    const password = takePassword(req.body);
    const options = documentOptionsFrom(req.body, ctx.config);
    const callbackUrl = await takeCallbackUrl(req.body, tenant, ctx.config.webhooks, ctx.webhookTargets);
    const files = await inspectFiles(spooled, () => readConverter(ctx.redis, ctx.config.redis.prefix));
    await moreRate?.();
    const jobIds = files.map(() => newId('job'));
    const priorities = await inSpan(SPAN.admission, { attributes: { [ATTR.tenant]: tenant, [ATTR.files]: jobIds.length } }, () => ctx.admission.admit(tenant, jobIds));
    admittedIds = jobIds;
    await inSpan(SPAN.uploadStore, { attributes: { [ATTR.files]: spooled.length, [ATTR.sizeBytes]: spooled.reduce((sum, f) => sum + f.size, 0) } }, () => storeFiles(ctx.storage, spooled));
    return { tenant, options, password, callbackUrl, files, jobIds, priorities };
  } catch (error) {
    await discard(spooled);
    await ctx.admission.release(tenant, admittedIds);
    throw error;
  }
}

/** A PDF password is part of the identity only as a keyed hash: equal passwords match, and the hash reveals nothing. */
function passwordIdentity(ctx: ApiContext, intake: Intake, file: AcceptedFile): string | undefined {
  return intake.password !== undefined && file.source.mediaType === PDF ? ctx.secrets.keyedHash(intake.password, PASSWORD_IDENTITY) : undefined;
}

function sourceInfo(file: AcceptedFile): NewJob['source'] {
  const { filename, mediaType, size, sha256 } = file.source;
  return { filename, mediaType, size, sha256, originalFilename: file.originalFilename };
}

/**
 * The extract job, at the priority its admission gave it. A PDF password rides along sealed with
 * the deployment key and bound to this job id, so Redis, Bull Board and the dead-letter queues only
 * ever hold ciphertext; it is not given to non-PDF jobs, which have no use for it.
 */
async function enqueueOrFail(ctx: ApiContext, job: NewJob, source: SourceRef, intake: Intake, index: number): Promise<void> {
  const payload: ExtractPayload & { secrets?: { password: string } } = { jobId: job.jobId, tenant: job.tenant, batchId: job.batch?.batchId, source, options: intake.options };
  if (intake.password !== undefined && source.mediaType === PDF) payload.secrets = { password: ctx.secrets.seal(intake.password, job.jobId) };
  try {
    await ctx.producer.add('extract', payload, { priority: intake.priorities[index] });
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
