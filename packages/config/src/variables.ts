import { z } from 'zod';
import { parseRedisUrl, RedisUrlError } from '@readpack/redis/url';
import { CONSUMER_ROLES, parseRoleList, STAGES } from './stages.js';

/**
 * Every environment variable Readpack reads, with its default and meaning. This table is the one
 * source of truth: the zod schema is built from it, and the README's configuration table is
 * checked against it by a test (packages/config/test/config.test.ts).
 */
export interface ConfigVariable {
  name: string;
  schema: z.ZodType;
  description: string;
}

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A comma list of consumer roles (stages, `webhook`). */
const roleList = z.string().transform((text, ctx) => {
  const roles = parseRoleList(text);
  if (!roles) ctx.addIssue({ code: 'custom', message: `a comma list of ${CONSUMER_ROLES.join(', ')}` });
  return roles ?? [];
});
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** REDIS_URL's three shapes (packages/redis/src/url.ts); the message says which part is wrong. */
const redisUrl = z.string().superRefine((value, ctx) => {
  try {
    parseRedisUrl(value);
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
});

export const VARIABLES = [
  { name: 'READPACK_ENV', schema: z.string().regex(/^[a-z0-9-]{1,32}$/).default('development'), description: 'Environment name (development, staging, production…). Part of job identities, so environments never share results.' },
  { name: 'REDIS_URL', schema: redisUrl.optional(), description: 'Redis for job state and queues: `redis://[user:pass@]host:port[/db]` (or `rediss://`), a Redis Cluster seed list `redis+cluster://[user:pass@]h1:p1,h2:p2`, or a Sentinel group `redis+sentinel://[user:pass@]h1:p1,h2:p2[/db]?name=<master>[&sentinelPassword=…]` (docs/redis-keys.md). Unset: `npm start` runs a private redis-server under `DATA_DIR/redis`; a lone API or worker process uses redis://127.0.0.1:6379.' },
  { name: 'READPACK_PREFIX', schema: z.string().regex(/^[A-Za-z0-9_-]*(\{[A-Za-z0-9_-]+\})?[A-Za-z0-9_-]*$/).min(1).max(42).default('readpack'), description: 'Prefix of every Redis key (state store `<prefix>:…`, BullMQ `<prefix>:bull:…`). Two deployments sharing one Redis need different prefixes. On a Redis Cluster it becomes a hash tag (`readpack` → `{readpack}`) unless it has one, so every key of the deployment shares one slot.' },
  { name: 'REDIS_COMMAND_TIMEOUT_MS', schema: int(50, 60_000).default(1_000), description: 'API side: a Redis command slower than this answers 503 instead of hanging the request.' },
  { name: 'HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Address the API binds to. Use 0.0.0.0 in containers.' },
  { name: 'PORT', schema: int(0, 65_535).default(3_000), description: 'API port, shared by all API processes.' },
  { name: 'API_INSTANCES', schema: int(1, 64).default(1), description: '`npm start`: API processes sharing the port. 1: one plain API process; more: node:cluster, whose primary (one more Node process, ≈85 MB) forks them. The `api` container always runs the cluster (docker-compose.yml).' },
  { name: 'PUBLIC_BASE_URL', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'Base of every URL in answers (status, package, assets). Unset: taken from each request\'s `Host`, which must then be one of TRUSTED_HOSTS in production; never stored.' },
  { name: 'TRUSTED_HOSTS', schema: z.string().optional(), description: 'Comma-separated `Host` values (`api.example.com`, `api.example.com:8443`) requests may carry; URLs in answers are built from the request\'s own. Another host answers 400. In production (`NODE_ENV=production` or `READPACK_ENV` other than `development`) this or PUBLIC_BASE_URL is required.' },
  { name: 'DATA_DIR', schema: z.string().min(1).default('./.data'), description: 'With `STORAGE=local`: blob store, reading packages, upload spool, shared by API and workers. Always: the secret key and the private Redis of `npm start`. With `STORAGE=s3` each process may have its own (it holds only that process\'s upload spool).' },
  { name: 'STORAGE', schema: z.enum(['local', 's3']).default('local'), description: 'Where uploads, blobs, assets and packages live: `local` (under DATA_DIR) or `s3` (S3-compatible object storage, S3_* variables; credentials by the AWS SDK\'s default chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles…).' },
  { name: 'S3_BUCKET', schema: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/).optional(), description: 'STORAGE=s3: the bucket (required). It must exist; Readpack never creates it.' },
  { name: 'S3_PREFIX', schema: z.string().regex(/^([A-Za-z0-9_.-]+\/)*$/).default(''), description: 'STORAGE=s3: key prefix ending in `/` (e.g. `readpack/`), so deployments can share a bucket.' },
  { name: 'S3_REGION', schema: z.string().min(1).default('us-east-1'), description: 'STORAGE=s3: region of the bucket (MinIO accepts any).' },
  { name: 'S3_ENDPOINT', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'STORAGE=s3: endpoint of an S3-compatible server (MinIO, Ceph…). Unset: AWS S3.' },
  { name: 'S3_FORCE_PATH_STYLE', schema: bool.default(false), description: 'STORAGE=s3: `http://host/bucket/key` addressing instead of `bucket.host` (MinIO and most self-hosted servers need it).' },
  { name: 'S3_SSE', schema: z.enum(['AES256', 'aws:kms', 'aws:kms:dsse']).optional(), description: 'STORAGE=s3: server-side encryption requested on every write (`ServerSideEncryption`). Unset: the bucket\'s default.' },
  { name: 'S3_SSE_KMS_KEY_ID', schema: z.string().min(1).optional(), description: 'STORAGE=s3 with S3_SSE=aws:kms: the KMS key (`SSEKMSKeyId`). Unset: the account\'s default key.' },
  { name: 'S3_MULTIPART_THRESHOLD_BYTES', schema: int(5 * 1024 ** 2, 5 * 1024 ** 3).default(16 * 1024 ** 2), description: 'STORAGE=s3: files at least this large are written as a multipart upload (parts of this size, 4 at a time).' },
  { name: 'ASSET_DELIVERY', schema: z.enum(['proxy', 'presigned']).default('proxy'), description: 'How the API serves assets: `proxy` streams them itself; `presigned` (STORAGE=s3 only) checks the tenant, then answers 302 to a presigned S3 URL valid ASSET_URL_TTL_SECONDS, so the bytes bypass the API. The bucket must then be reachable by clients at S3_ENDPOINT.' },
  { name: 'ASSET_URL_TTL_SECONDS', schema: int(10, 3_600).default(300), description: 'ASSET_DELIVERY=presigned: lifetime of a presigned asset URL.' },
  { name: 'MAX_UPLOAD_BYTES', schema: int(1, 10 * 1024 ** 3).default(100 * 1024 ** 2), description: 'Largest accepted file; larger uploads answer 413.' },
  { name: 'UPLOAD_IDLE_TIMEOUT_MS', schema: int(1_000, 600_000).default(30_000), description: 'An upload body that makes no progress for this long (a client that stopped sending, or sent less than its Content-Length) has its connection closed.' },
  { name: 'PACKAGE_READ_BUDGET_MB', schema: int(1, 65_536).default(256), description: 'API: megabytes of stored packages one API process reads and answers at once. A package answer holds the whole package in memory until it is sent (a 10,000-page text PDF\'s is ~175 MB stored and grew an API process by ~390 MB, 2.3× that, while it was answered); readers of packages of 1 MB or more beyond this wait their turn, first come first served. A package larger than the budget is read alone.' },
  { name: 'MAX_BATCH_FILES', schema: int(1, 1_000).default(20), description: 'Most files in one batch upload; more answer 413.' },
  { name: 'QUEUED_TTL_SECONDS', schema: int(60, 30 * 86_400).default(86_400), description: 'How long a job record may wait in `queued` before it expires.' },
  { name: 'PROCESSING_TTL_SECONDS', schema: int(30, 7 * 86_400).default(3_600), description: 'Expiry of a `processing` record, pushed forward by every consumer heartbeat.' },
  { name: 'RESULT_TTL_SECONDS', schema: int(60, 365 * 86_400).default(86_400), description: 'Polling window: a `done`/`failed` record (and its package) lives this long after it became terminal.' },
  { name: 'ADMIN_TOKEN', schema: z.string().min(16).optional(), description: 'Full Bull Board access (/admin/queues) with `Authorization: Bearer` or HTTP Basic (any user; the token is the password). Never a tenant key. Unset: Bull Board answers loopback clients in single-tenant dev mode only.' },
  { name: 'LOG_LEVEL', schema: z.enum(['error', 'warn', 'info', 'debug']).default('info'), description: 'Winston log level.' },
  { name: 'LOG_FORMAT', schema: z.enum(['json', 'pretty']).optional(), description: 'Log lines: `json` (one object per line, for files and containers) or `pretty` (short coloured lines for people). Unset: `pretty` when stdout is a terminal, else `json`.' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'OpenTelemetry tracing: base URL of an OTLP/HTTP collector (Jaeger, Tempo, the OpenTelemetry Collector…); spans go to `<url>/v1/traces` as JSON. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is off and the SDK is never loaded. docs/operations.md, "Tracing".' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'OpenTelemetry tracing: the full URL spans are posted to, used as is (wins over OTEL_EXPORTER_OTLP_ENDPOINT).' },
  { name: 'READPACK_STAGE', schema: z.enum(STAGES).optional(), description: 'Worker process: the one stage it consumes (or pass it as the first argument). READPACK_STAGES wins when both are set.' },
  { name: 'READPACK_STAGES', schema: roleList.optional(), description: `Worker process: the stages it consumes, comma-separated (\`extract,assemble\`; any of ${CONSUMER_ROLES.join(', ')}), one BullMQ worker each with its own concurrency, in one process. Arguments win: \`node apps/worker/dist/main.js extract assemble\`.` },
  { name: 'SHARED_PROCESS_STAGES', schema: roleList.default(['extract', 'convert', 'render', 'mineru', 'assemble', 'webhook']), description: '`npm start`: the stages (and `webhook`) that share one consumer process when each runs one consumer. A stage given more than one consumer (`<STAGE>_CONSUMERS=2`) runs in processes of its own; a stage not listed always does. OCR is left out by default: its tesseract workers are the heavy, ever-growing memory. A process that consumes extract and assemble assembles a document with nothing to wait for in its extract job (docs/architecture.md).' },
  { name: 'EXTRACT_CONCURRENCY', schema: int(1, 64).default(2), description: 'Jobs one extract consumer runs at once (each parse runs in its own worker thread).' },
  { name: 'ASSEMBLE_CONCURRENCY', schema: int(1, 64).default(4), description: 'Jobs one assemble consumer runs at once (I/O bound).' },
  { name: 'EXTRACT_CONSUMERS', schema: int(0, 64).default(1), description: '`npm start`: extract consumer processes.' },
  { name: 'ASSEMBLE_CONSUMERS', schema: int(0, 64).default(1), description: '`npm start`: assemble consumer processes.' },
  { name: 'RENDER_CONCURRENCY', schema: int(1, 64).default(1), description: 'Pages one render consumer renders at once (CPU bound: one per core it may use).' },
  { name: 'OCR_CONCURRENCY', schema: int(1, 64).optional(), description: 'Most pages one OCR consumer reads at once (its BullMQ concurrency), each on a tesseract.js worker of its own (≈110 MB each) or, with OCR_ENGINE=native, a tesseract process. Unset: the machine\'s cores (`os.availableParallelism()`, at most 64). Workers beyond OCR_WARM_WORKERS start when that many pages are in hand and stop after OCR_WORKER_IDLE_MS idle.' },
  { name: 'OCR_WARM_WORKERS', schema: int(0, 64).default(1), description: 'tesseract.js workers one OCR consumer keeps through idle periods (at most OCR_CONCURRENCY; started by the first pages, not at boot). 0: every worker stops when idle, the next page pays a start (~0.5 s).' },
  { name: 'OCR_WORKER_IDLE_MS', schema: int(100, 3_600_000).default(30_000), description: 'A tesseract.js worker beyond OCR_WARM_WORKERS idle this long is stopped and its memory returned. 30 s: a restart (~0.5 s of CPU) per 30 s at worst, the memory of a burst back half a minute after it.' },
  { name: 'MINERU_CONCURRENCY', schema: int(1, 64).default(4), description: 'MinerU tasks one mineru consumer polls at once (I/O bound; the global cap is MINERU_MAX_CONCURRENCY).' },
  { name: 'RENDER_CONSUMERS', schema: int(0, 64).default(1), description: '`npm start`: render consumer processes.' },
  { name: 'OCR_CONSUMERS', schema: int(0, 64).default(1), description: '`npm start`: OCR consumer processes.' },
  { name: 'MINERU_CONSUMERS', schema: int(0, 64).optional(), description: '`npm start`: mineru consumer processes. Unset: 1 when MINERU_URL is set, else 0 (nothing is routed to MinerU then). More than 0 without MINERU_URL is a configuration error.' },
  { name: 'CONVERT_CONCURRENCY', schema: int(1, 1).default(1), description: 'Fixed at 1: a convert consumer runs one LibreOffice at a time in its own profile (packages/queues/src/stages/convert.config.ts). Scale with CONVERT_CONSUMERS.' },
  { name: 'CONVERT_CONSUMERS', schema: int(0, 64).optional(), description: '`npm start`: convert consumer processes (LibreOffice → PDF for PPT, RTF, ODT, ODP and DOC files word-extractor cannot read). Unset: 1 when LibreOffice (`soffice`) is installed, else 0 and those uploads answer 415 `converter_unavailable`.' },
  { name: 'CONVERT_TIMEOUT_MS', schema: int(5_000, 3_600_000).default(120_000), description: 'A LibreOffice conversion running longer is killed (its whole process group) and the job fails with `conversion_timeout`.' },
  { name: 'SOFFICE_PATH', schema: z.string().min(1).optional(), description: 'The LibreOffice binary. Unset: `soffice` on PATH or in /usr/bin, /usr/local/bin.' },
  { name: 'RENDER_DPI', schema: int(72, 600).default(300), description: 'Resolution pages are rendered at for OCR.' },
  { name: 'MAX_PAGES', schema: int(1, 100_000).default(10_000), description: 'Documents with more pages fail with `too_many_pages`.' },
  { name: 'PDF_SLICE_ABOVE', schema: int(1, 100_000).default(400), description: 'A PDF with more pages is read in slices of `PDF_SLICE_PAGES` pages by several extract jobs at once (any extract consumer takes any slice), then merged in page order; up to this many pages it is one extract job.' },
  { name: 'PDF_SLICE_PAGES', schema: int(10, 10_000).default(200), description: 'Pages per slice of a sliced PDF: a consumer\'s memory grows with its slice. The PDF is split once into one file per slice (qpdf); without qpdf each slice opens the whole PDF once more (~0.5 s for 2,000 pages, ~2.7 s for 10,000).' },
  { name: 'PDF_SLICES_PER_CONSUMER', schema: int(1, 64).default(1), description: 'Slices one extract consumer reads at once (others it holds wait for it): its memory is this many slices\' worth. A large PDF is read faster by more extract consumers.' },
  { name: 'MAX_IMAGE_PIXELS', schema: int(1_000_000, 1_000_000_000).default(100_000_000), description: 'Largest image or rendered page (pixels) a consumer will decode; larger fail with `page_too_large` / `image_too_large` (decompression bombs).' },
  { name: 'OCR_MIN_CHARS_PER_PAGE', schema: int(0, 10_000).default(32), description: 'A PDF page whose text layer has fewer non-space characters than this is rendered and OCR-read instead.' },
  { name: 'OCR_DEFAULT_LANG', schema: z.string().regex(/^(auto|[a-z_]+(\+[a-z_]+)*)$/).default('auto'), description: 'OCR languages when an upload names none: `auto` (each page\'s language from its CID fonts, its text\'s scripts or OSD on the pixels, else `eng`) or tesseract codes joined by +, e.g. `eng+chi_sim`.' },
  { name: 'OCR_ENGINE', schema: z.enum(['tesseract.js', 'native']).default('tesseract.js'), description: 'OCR engine: `tesseract.js` (WASM in worker threads, no system dependency) or `native` (Debian\'s `tesseract` in child processes, batches of pages per process; faster per core, needs tesseract-ocr). See packages/ocr/README.md.' },
  { name: 'TESSDATA_DIR', schema: z.string().min(1).optional(), description: 'Directory with `<lang>.traineddata` files. Unset: Debian\'s /usr/share/tesseract-ocr/5/tessdata, then @tesseract.js-data packages. Never downloaded at run time.' },
  { name: 'DEFAULT_ENGINE', schema: z.enum(['local', 'mineru', 'auto']).default('local'), description: 'Parsing engine when an upload names none: `local`, `mineru` (fails with `mineru_unavailable` if MinerU is down), or `auto` (MinerU for complex PDFs when configured, else local).' },
  { name: 'MINERU_URL', schema: z.url({ protocol: /^https?$/ }).optional(), description: 'Base URL of a MinerU API server (protocol 2). Unset: the mineru engine is unavailable.' },
  { name: 'MINERU_BACKEND', schema: z.enum(['pipeline', 'vlm-engine', 'hybrid-engine', 'vlm-http-client', 'hybrid-http-client']).default('hybrid-engine'), description: 'MinerU backend requested for each task.' },
  { name: 'MINERU_MAX_CONCURRENCY', schema: int(1, 256).default(2), description: 'Most MinerU tasks in flight across ALL consumer processes (BullMQ global concurrency); keep ≤ the server\'s own limit (3 by default).' },
  { name: 'MINERU_RATE_MAX', schema: int(1, 100_000).default(30), description: 'Most MinerU submissions per MINERU_RATE_WINDOW_MS across all processes.' },
  { name: 'MINERU_RATE_WINDOW_MS', schema: int(100, 3_600_000).default(60_000), description: 'Window of the MinerU rate limit.' },
  { name: 'MINERU_REQUEST_TIMEOUT_MS', schema: int(100, 600_000).default(30_000), description: 'Timeout of one HTTP request to MinerU.' },
  { name: 'MINERU_RETRY_DELAY_MS', schema: int(10, 600_000).default(5_000), description: 'First retry delay of a failed MinerU attempt (doubling, 6 attempts in all).' },
  { name: 'MINERU_POLL_INTERVAL_MS', schema: int(10, 600_000).default(2_000), description: 'First wait between polls of a MinerU task (growing ×1.5 up to 10×).' },
  { name: 'MINERU_BUDGET_MS', schema: int(1_000, 86_400_000).default(1_800_000), description: 'Total time one document may spend at MinerU (submit to result) before it fails with `mineru_timeout`.' },
  { name: 'API_KEYS', schema: z.string().min(1).optional(), description: 'Tenant API keys, `key1:tenant1,key2:tenant2`. Unset (and no API_KEYS_FILE): single-tenant dev mode, loudly logged.' },
  { name: 'API_KEYS_FILE', schema: z.string().min(1).optional(), description: 'A file with one `key:tenant` per line (comments with #), for real deployments.' },
  { name: 'ADMIN_VIEWER_TOKEN', schema: z.string().min(16).optional(), description: 'Read-only Bull Board access (write actions answer 405).' },
  { name: 'CORS_ORIGINS', schema: z.string().optional(), description: 'Comma-separated origins allowed to call the API from browsers. Unset: no cross-origin access.' },
  { name: 'EVENT_STREAMS_PER_PROCESS', schema: int(1, 100_000).default(1_000), description: 'Server-Sent Events clients one API process follows at once (each holds a Redis connection); beyond, `/events` answers 503 and clients poll.' },
  { name: 'EVENT_HEARTBEAT_MS', schema: int(100, 300_000).default(15_000), description: 'Interval of the `: heartbeat` comment on an idle event stream, so proxies keep it open.' },
  { name: 'WEBHOOK_SECRETS', schema: z.string().optional(), description: 'Per-tenant webhook signing secrets, `tenant=secret,tenant=secret` (each secret ≥ 16 characters, no commas). A tenant without one gets no webhooks (a `callbackUrl` upload answers 400). Single-tenant dev mode: tenant `default`. docs/webhooks.md.' },
  { name: 'WEBHOOK_DEFAULT_URLS', schema: z.string().optional(), description: 'Per-tenant default `callbackUrl`, `tenant=url,tenant=url`: used when an upload names none.' },
  { name: 'WEBHOOK_ALLOW_HOSTS', schema: z.string().optional(), description: 'Webhook targets allowed although private, loopback or link-local: comma-separated host names and CIDRs (`127.0.0.1/32`, `10.1.0.0/16`, `hooks.internal`). Everything else that resolves to such an address is refused at upload and at delivery.' },
  { name: 'WEBHOOK_TIMEOUT_MS', schema: int(100, 120_000).default(10_000), description: 'A webhook delivery attempt (connect to last byte of the answer) taking longer fails and is retried.' },
  { name: 'WEBHOOK_ATTEMPTS', schema: int(1, 50).default(8), description: 'Tries of one webhook delivery before it is dead-lettered (`webhook-dlq`).' },
  { name: 'WEBHOOK_BACKOFF_MS', schema: int(1, 3_600_000).default(5_000), description: 'First retry delay of a failed webhook delivery; doubles per attempt (packages/queues/src/webhook.config.ts).' },
  { name: 'WEBHOOK_CONSUMERS', schema: int(0, 64).default(1), description: '`npm start`: webhook delivery consumer processes.' },
  { name: 'UPLOAD_RATE_PER_MINUTE', schema: int(1, 1_000_000).default(120), description: 'Uploads one tenant may make per minute, across all API processes (429 + Retry-After beyond).' },
  { name: 'MAX_ACTIVE_JOBS_PER_TENANT', schema: int(1, 1_000_000).default(200), description: 'Jobs one tenant may have queued or processing at once (429 beyond).' },
  { name: 'MAX_ZIP_UNCOMPRESSED_BYTES', schema: int(1_000_000, 10 * 1024 ** 3).default(512 * 1024 ** 2), description: 'DOCX/XLSX: largest total uncompressed size (zip bombs), checked before inflating.' },
  { name: 'MAX_ZIP_RATIO', schema: int(10, 100_000).default(200), description: 'DOCX/XLSX: largest compression ratio of any entry.' },
  { name: 'MAX_ZIP_ENTRIES', schema: int(10, 1_000_000).default(10_000), description: 'DOCX/XLSX: most entries in the archive.' },
  { name: 'PARSE_TIMEOUT_MS', schema: int(1_000, 3_600_000).default(300_000), description: 'A single parse running longer than this is aborted and the job fails with `timeout`.' },
  { name: 'PARSE_MAX_HEAP_MB', schema: int(64, 16_384).default(1_024), description: 'Heap cap of each parser worker thread; a document that needs more fails with `resource_limit` instead of taking the consumer down.' },
  { name: 'LOCK_DURATION_MS', schema: int(1_000, 600_000).optional(), description: 'Overrides every queue\'s BullMQ lock duration (the lease a consumer holds on a job; see packages/queues/src/stages/*.config.ts). The job record\'s lease follows it.' },
  { name: 'STALLED_INTERVAL_MS', schema: int(500, 600_000).optional(), description: 'Overrides every queue\'s stall-check interval. Worst-case takeover after a consumer dies = lock duration + 2 × this (one check can skip a tick).' },
  { name: 'SWEEPER_INTERVAL_MS', schema: int(1_000, 86_400_000).default(60_000), description: 'How often the sweeper fails records left `processing`/`queued` with no lease and no queued job (orphans).' },
  { name: 'JANITOR_INTERVAL_MS', schema: int(1_000, 86_400_000).default(600_000), description: 'How often the janitor removes expired packages, unreferenced blobs and stale spool files.' },
  { name: 'FAULT_EXIT_ON_FILENAME', schema: z.string().min(1).optional(), description: 'Test only: a consumer exits its process when a job\'s filename contains this text (poison-document tests).' },
  { name: 'FAULT_BUSY', schema: z.string().regex(/^[a-z]+:\d{1,7}:.+$/).optional(), description: 'Test only: `<stage>:<ms>:<text>`: that stage\'s consumer spends `<ms>` of CPU in a worker thread before handling a job whose filename contains `<text>` (long-page tests: the lock must renew throughout).' },
  { name: 'SHUTDOWN_GRACE_MS', schema: int(0, 600_000).default(30_000), description: 'On SIGTERM, how long running jobs may finish before the process exits anyway (unfinished jobs are retried elsewhere).' },
  { name: 'REDIS_MANAGED', schema: bool.default(false), description: 'Internal: set by `npm start` for the processes it supervises.' },
] as const satisfies readonly ConfigVariable[];

export function describeConfig(): readonly ConfigVariable[] {
  return VARIABLES;
}

/** The README's configuration table, rendered from VARIABLES (`npm run docs:config` prints it). */
export function renderConfigTable(): string {
  const rows = VARIABLES.map((v) => {
    const fallback = v.schema.safeParse(undefined);
    const shown = fallback.success && fallback.data !== undefined ? `\`${String(fallback.data)}\`` : '—';
    return `| \`${v.name}\` | ${shown} | ${v.description} |`;
  });
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
