import { z } from 'zod';
import { assetId, batchAccepted, batchId, batchUploadForm, batchView, errorBody, health, jobId, jobView, ready, singleUploadForm, uploadAccepted } from './schemas.js';

/** What one response carries: a JSON body from a schema, the reading package, Markdown, or bytes. */
export type Body = { json: z.ZodType } | { readingPackage: true } | { markdown: true } | { binary: true } | { html: true } | { prometheus: true } | { eventStream: true } | { none: true };

export interface ResponseSpec {
  description: string;
  body: Body;
  headers?: Record<string, string>;
}

export interface Operation {
  method: 'get' | 'post';
  /** OpenAPI template (`{jobId}`), the Express path with `:jobId`. */
  path: string;
  operationId: string;
  summary: string;
  /** Tenant API key (every `/api` route but the documentation), admin token (/metrics), or none. */
  auth: 'tenant' | 'admin' | 'none';
  params?: Record<string, z.ZodType>;
  form?: z.ZodType;
  responses: Record<number, ResponseSpec>;
}

const error = (description: string): ResponseSpec => ({ description, body: { json: errorBody } });

/** Answers any authenticated route can give before its handler runs, or when Redis is away. */
const COMMON_API_ERRORS: Record<number, ResponseSpec> = {
  400: error('`untrusted_host`, `bad_request` (undecodable path), or a route-specific refusal.'),
  401: error('`auth_required` or `invalid_api_key`.'),
  413: error('`body_too_large`: a body over 16 KiB on a route that takes none.'),
  500: error('`internal_error`.'),
  503: error('`state_store_unavailable`; `Retry-After` says when to retry.'),
};

const UPLOAD_ERRORS: Record<number, ResponseSpec> = {
  400: error('`missing_file(s)`, `empty_file`, `invalid_option`, `engine_unavailable`, `invalid_password`, `invalid_callback_url`, malformed multipart (`bad_upload`, `unexpected_file_field`, `field_name_too_long`).'),
  413: error('`file_too_large`, `too_many_files`, `too_many_parts`, `too_many_fields`, `field_too_large`.'),
  415: error('`unsupported_media_type` or `converter_unavailable` (body has `detected`).'),
  429: error('`rate_limited` or `too_many_active_jobs`; `Retry-After`.'),
};

const location = { Location: 'The status URL.' };
const jobParam = { jobId };

/** Every route of the API. The OpenAPI document, the Markdown reference and the response checks of the tests come from this table. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: 'post', path: '/api/files', operationId: 'uploadFile', summary: 'Upload one document; answers at once with the job to poll.', auth: 'tenant',
    form: singleUploadForm,
    responses: { 202: { description: 'Accepted (or joined a running job with the same content).', body: { json: uploadAccepted }, headers: location }, ...COMMON_API_ERRORS, ...UPLOAD_ERRORS },
  },
  {
    method: 'post', path: '/api/files/batch', operationId: 'uploadBatch', summary: 'Upload several documents as one batch.', auth: 'tenant',
    form: batchUploadForm,
    responses: { 202: { description: 'Accepted.', body: { json: batchAccepted }, headers: location }, ...COMMON_API_ERRORS, ...UPLOAD_ERRORS },
  },
  {
    method: 'get', path: '/api/files/job/{jobId}', operationId: 'getJob', summary: 'The status document of a job.', auth: 'tenant', params: jobParam,
    responses: { 200: { description: 'The job.', body: { json: jobView } }, ...COMMON_API_ERRORS, 404: error('`job_not_found` (missing, expired, or another tenant\'s).') },
  },
  {
    method: 'get', path: '/api/files/batch/{batchId}', operationId: 'getBatch', summary: 'The status of a batch and its files.', auth: 'tenant', params: { batchId },
    responses: { 200: { description: 'The batch.', body: { json: batchView } }, ...COMMON_API_ERRORS, 404: error('`batch_not_found`.') },
  },
  {
    method: 'get', path: '/api/files/job/{jobId}/events', operationId: 'getJobEvents', auth: 'tenant', params: jobParam,
    summary: 'Server-Sent Events: every change of the job\'s status document, from creation (or after `Last-Event-ID`) to the terminal one; `: heartbeat` comments while idle.',
    responses: {
      200: { description: 'An event stream: each event has `id` (resume with `Last-Event-ID`), `event: status` and `data` = the job\'s status document (JobView) at that change. Ends after `done` or `failed`.', body: { eventStream: true } },
      ...COMMON_API_ERRORS,
      404: error('`job_not_found` (missing, expired, or another tenant\'s).'),
      503: error('`state_store_unavailable`, or `too_many_streams` (this process follows `EVENT_STREAMS_PER_PROCESS` streams: poll instead); `Retry-After`.'),
    },
  },
  {
    method: 'get', path: '/api/files/batch/{batchId}/events', operationId: 'getBatchEvents', auth: 'tenant', params: { batchId },
    summary: 'Server-Sent Events of a batch: every change of every member, then the batch\'s status once all members ended.',
    responses: {
      200: { description: 'An event stream: `event: job` with `data` = a member\'s status document (JobView) per change; when every member has ended, `event: status` with `data` = the batch (BatchView), and the stream ends. Resume with `Last-Event-ID`.', body: { eventStream: true } },
      ...COMMON_API_ERRORS,
      404: error('`batch_not_found`.'),
      503: error('`state_store_unavailable` or `too_many_streams`; `Retry-After`.'),
    },
  },
  {
    method: 'get', path: '/api/files/job/{jobId}/package', operationId: 'getPackage', summary: 'The reading package of a done job (schema version 2), asset URLs absolute.', auth: 'tenant', params: jobParam,
    responses: {
      200: {
        description: 'The package. A large one (256 Ki characters of text and Markdown or more) is streamed as it is serialized: chunked, without Content-Length.',
        body: { readingPackage: true },
        headers: { ETag: 'Strong; known from the job record, so a request with `If-None-Match` that matches is answered 304 without the package being read.' },
      },
      304: { description: 'Not modified (`If-None-Match`).', body: { none: true } },
      ...COMMON_API_ERRORS,
      404: error('`job_not_found` or `package_not_found`.'),
      409: error('`package_not_ready` (body has `status`, `phase`, and `jobError` when failed).'),
    },
  },
  {
    method: 'get', path: '/api/files/job/{jobId}/markdown', operationId: 'getMarkdown', summary: 'The package\'s Markdown rendering.', auth: 'tenant', params: jobParam,
    responses: {
      200: { description: 'Markdown.', body: { markdown: true }, headers: { ETag: 'Strong, as the package\'s (another value).' } },
      304: { description: 'Not modified (`If-None-Match`).', body: { none: true } },
      ...COMMON_API_ERRORS,
      404: error('`job_not_found` or `package_not_found`.'),
      409: error('`package_not_ready`.'),
    },
  },
  {
    method: 'get', path: '/api/assets/{assetId}', operationId: 'getAsset', summary: 'An asset\'s bytes (image, page render); immutable, with an ETag.', auth: 'tenant', params: { assetId },
    responses: {
      200: { description: 'The bytes, with the asset\'s media type.', body: { binary: true }, headers: { ETag: 'The asset\'s sha256, quoted.' } },
      304: { description: 'Not modified (`If-None-Match`).', body: { none: true } },
      ...COMMON_API_ERRORS,
      404: error('`asset_not_found`.'),
    },
  },
  {
    method: 'get', path: '/healthz', operationId: 'liveness', summary: 'Liveness: the process answers (never touches Redis).', auth: 'none',
    responses: { 200: { description: 'Alive.', body: { json: health } }, 500: error('`internal_error`.') },
  },
  {
    method: 'get', path: '/readyz', operationId: 'readiness', summary: 'Readiness: Redis answers.', auth: 'none',
    responses: { 200: { description: 'Ready.', body: { json: ready } }, 503: error('`state_store_unavailable`.') },
  },
  {
    method: 'get', path: '/api/openapi.json', operationId: 'openapi', summary: 'This document (OpenAPI 3.1).', auth: 'none',
    responses: { 200: { description: 'The document.', body: { json: z.looseObject({ openapi: z.literal('3.1.0') }) } } },
  },
  {
    method: 'get', path: '/api/docs', operationId: 'reference', summary: 'This reference as an HTML page.', auth: 'none',
    responses: { 200: { description: 'HTML.', body: { html: true } } },
  },
  {
    method: 'get', path: '/metrics', operationId: 'metrics', summary: 'Prometheus metrics of the whole deployment (README, Operations).', auth: 'admin',
    responses: {
      200: { description: 'Prometheus text format 0.0.4.', body: { prometheus: true } },
      401: error('`admin_auth_required`; `WWW-Authenticate: Basic`.'),
      403: error('`admin_disabled`: no admin token configured, and not loopback in single-tenant dev mode.'),
      500: error('`internal_error` (the cluster\'s sum could not be collected).'),
    },
  },
];

