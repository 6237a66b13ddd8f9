import { z } from 'zod';
import { JOB_STATUSES, PHASES, type BatchView, type JobView } from '@readpack/job-state';
import { documentOptions } from '@readpack/queues';
import { ID_PATTERNS } from '../ids.js';
import { HTTP_ERROR_CODES } from './error-codes.js';

/*
 * The API's contract: what routes accept and answer. Routes parse with these schemas or type their
 * answers with their inferred types, and the OpenAPI document (openapi.ts) is generated from them,
 * so the two cannot drift apart.
 */

/** ids.ts: 128 random bits, base64url, after a kind prefix. */
export const jobId = z.string().regex(ID_PATTERNS.job).meta({ description: 'A job id (`job_` + 22 base64url characters).' });
export const batchId = z.string().regex(ID_PATTERNS.batch).meta({ description: 'A batch id (`batch_` + 22 base64url characters).' });
export const assetId = z.string().meta({ description: '`<packageId>.<sha256>`, as in the package\'s `assets[].url`.' });

/** The multipart fields of an upload besides the file(s); defaults come from the deployment. */
export const uploadFields = z.object({
  engine: documentOptions.shape.engine.optional().meta({ description: 'Parse engine (default `ENGINE_DEFAULT`).' }),
  ocrLang: documentOptions.shape.ocrLang.optional().meta({ description: 'Tesseract languages joined by `+` (default `OCR_DEFAULT_LANG`).' }),
  password: z.string().min(1).optional().meta({ description: 'A PDF user password, 1–256 bytes UTF-8; never stored or logged.' }),
  callbackUrl: z.string().max(2048).optional().meta({ format: 'uri', description: 'Webhook: where the signed terminal event (job.done / job.failed) is POSTed (docs/webhooks.md). Default: the tenant\'s `WEBHOOK_DEFAULT_URLS` entry. Private, loopback and link-local targets are refused unless `WEBHOOK_ALLOW_HOSTS` allows them.' }),
});

const binary = z.string().meta({ format: 'binary' });
export const singleUploadForm = uploadFields.extend({ file: binary }).meta({ id: 'SingleUpload' });
export const batchUploadForm = uploadFields.extend({ files: z.array(binary).min(1) }).meta({ id: 'BatchUpload' });

const jobStatus = z.enum(JOB_STATUSES);
const phase = z.enum(PHASES);
const progress = z.object({ done: z.number().int().min(0), total: z.number().int().min(0) });
const jobError = z.object({ code: z.string(), message: z.string() });
const isoTime = z.string().meta({ format: 'date-time' });

export const uploadAccepted = z
  .object({
    jobId: jobId,
    status: jobStatus,
    statusUrl: z.string().meta({ format: 'uri' }),
    deduplicated: z.boolean().meta({ description: 'True when the upload joined a running job with the same content and options.' }),
  })
  .meta({ id: 'UploadAccepted' });
export type UploadAccepted = z.infer<typeof uploadAccepted>;

export const batchAccepted = z
  .object({
    batchId: batchId,
    statusUrl: z.string().meta({ format: 'uri' }),
    files: z.array(z.object({ index: z.number().int().min(0), name: z.string(), jobId: jobId })),
  })
  .meta({ id: 'BatchAccepted' });
export type BatchAccepted = z.infer<typeof batchAccepted>;

export const jobView = z
  .object({
    jobId: jobId,
    status: jobStatus,
    phase,
    progress,
    error: jobError.optional(),
    result: z.object({ packageId: z.string(), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
    source: z.object({ filename: z.string(), mediaType: z.string(), size: z.number().int().min(0), originalFilename: z.string().optional() }),
    batch: z.object({ batchId: batchId, index: z.number().int().min(0) }).optional(),
    series: z.number().int().min(1),
    history: z.array(z.object({ series: z.number().int(), code: z.string(), message: z.string(), phase: z.string(), failedAt: isoTime })).optional(),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: 'JobView', description: 'The status document of a job; poll it until `status` is `done` or `failed`.' });

export const batchView = z
  .object({
    batchId: batchId,
    status: z.enum(['queued', 'processing', 'done', 'failed', 'partial']),
    total: z.number().int().min(0),
    completed: z.number().int().min(0),
    failed: z.number().int().min(0),
    createdAt: isoTime,
    files: z.array(
      z.object({
        index: z.number().int().min(0),
        name: z.string(),
        jobId: jobId,
        status: z.enum([...JOB_STATUSES, 'expired']),
        phase: phase.optional(),
        progress: progress.optional(),
        error: jobError.optional(),
      }),
    ),
  })
  .meta({ id: 'BatchView' });

export const health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
export const ready = z.object({ status: z.literal('ready') }).meta({ id: 'Ready' });

/** Every error answer; details (`limitBytes`, `field`, `detected`…) sit beside `code` and `message`. */
export const errorBody = z
  .object({ error: z.looseObject({ code: z.enum(HTTP_ERROR_CODES), message: z.string() }) })
  .meta({ id: 'Error', description: 'Error body; codes are listed in docs/errors.md.' });

/*
 * The job-state package owns these documents (they are built by its Lua scripts); the schemas
 * must describe exactly its types. These lines stop the build when either side changes alone.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const jobViewMatches: Same<z.infer<typeof jobView>, JobView> = true;
const batchViewMatches: Same<z.infer<typeof batchView>, Omit<BatchView, 'tenant'>> = true;
export const TYPES_MATCH = jobViewMatches && batchViewMatches;
