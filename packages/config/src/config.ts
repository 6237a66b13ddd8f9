import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { deploymentKeyPrefix, parseRedisUrl, type RedisKind } from '@readpack/redis/url';
import { VARIABLES } from './variables.js';
import { STAGES, type ConsumerRole, type Stage } from './stages.js';


type Shape = { [V in (typeof VARIABLES)[number] as V['name']]: V['schema'] };
const schema = z.object(Object.fromEntries(VARIABLES.map((v) => [v.name, v.schema])) as Shape);
type Env = z.infer<typeof schema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
  }
}

/** The typed configuration every process builds once at start (and passes down, never re-reads). */
export interface Config {
  env: string;
  /** NODE_ENV=production (the Docker image sets it) or any READPACK_ENV but `development`. */
  production: boolean;
  redis: {
    url: string;
    /** Which deployment REDIS_URL names (standalone, cluster, sentinel); packages/redis connects accordingly. */
    kind: RedisKind;
    explicit: boolean;
    /** The key prefix in use: READPACK_PREFIX, as a `{hash tag}` on a Cluster (docs/redis-keys.md). */
    prefix: string;
    commandTimeoutMs: number;
    managed: boolean;
  };
  http: {
    host: string;
    port: number;
    apiInstances: number;
    publicBaseUrl: string | undefined;
    /** Lower-case `Host` values a request may carry; empty: any (development only, see loadConfig). */
    trustedHosts: string[];
    uploadIdleTimeoutMs: number;
    adminToken: string | undefined;
  };
  dataDir: string;
  /** Where uploads, blobs and packages live; `s3` is set only with STORAGE=s3 (S3_BUCKET then required). */
  storage: { kind: 'local' | 's3'; s3: S3Config | undefined; assetDelivery: 'proxy' | 'presigned'; assetUrlTtlSeconds: number };
  limits: {
    maxUploadBytes: number;
    maxBatchFiles: number;
    /** Bytes of stored packages one API process reads and answers at once (PACKAGE_READ_BUDGET_MB). */
    packageReadBudgetBytes: number;
    parseTimeoutMs: number;
    parseMaxHeapMb: number;
    maxPages: number;
    /** A PDF of more pages than `above` is read in slices of `pages` pages, `atOnce` per consumer (PDF_SLICE*). */
    pdfSlices: { above: number; pages: number; atOnce: number };
    maxImagePixels: number;
    zip: { maxUncompressedBytes: number; maxRatio: number; maxEntries: number };
  };
  ocr: {
    renderDpi: number;
    minCharsPerPage: number;
    defaultLang: string;
    tessdataDir: string | undefined;
    engine: 'tesseract.js' | 'native';
    /** tesseract.js workers kept through idle periods (OCR_WARM_WORKERS, at most `stages.ocr.concurrency`). */
    warmWorkers: number;
    /** How long a worker beyond `warmWorkers` may idle before it is stopped (OCR_WORKER_IDLE_MS). */
    workerIdleMs: number;
  };
  engine: { default: 'local' | 'mineru' | 'auto' };
  mineru: {
    url: string | undefined;
    backend: 'pipeline' | 'vlm-engine' | 'hybrid-engine' | 'vlm-http-client' | 'hybrid-http-client';
    maxConcurrency: number;
    rate: { max: number; windowMs: number };
    requestTimeoutMs: number;
    budgetMs: number;
    retryDelayMs: number;
    pollIntervalMs: number;
    /** MINERU_CONSUMERS was given (`npm start` refuses a count above 0 without a URL; unset follows the URL). */
    consumersExplicit: boolean;
  };
  /** Webhooks on terminal states (docs/webhooks.md). */
  webhooks: {
    /** tenant → signing secret. */
    secrets: Record<string, string>;
    /** tenant → callback URL used when an upload names none. */
    defaultUrls: Record<string, string>;
    /** Host names and CIDRs allowed although private/loopback/link-local. */
    allow: string[];
    timeoutMs: number;
    attempts: number;
    backoffMs: number;
    consumers: number;
  };
  /** Server-Sent Events (GET …/events). */
  events: { maxStreamsPerProcess: number; heartbeatMs: number };
  tenancy: {
    apiKeys: string | undefined;
    apiKeysFile: string | undefined;
    uploadRatePerMinute: number;
    maxActiveJobsPerTenant: number;
    corsOrigins: string[];
    adminViewerToken: string | undefined;
  };
  ttl: { queuedSeconds: number; processingSeconds: number; resultSeconds: number };
  /** Global overrides of the per-queue lease settings (tests, tuning); undefined keeps each queue's own. */
  leases: { lockDurationMs: number | undefined; stalledIntervalMs: number | undefined };
  maintenance: { sweeperIntervalMs: number; janitorIntervalMs: number };
  faults: { exitOnFilename: string | undefined; busy: { stage: string; ms: number; filename: string } | undefined };
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  /** Unset: chosen by the logger from whether stdout is a terminal. */
  logFormat: 'json' | 'pretty' | undefined;
  /** OpenTelemetry tracing (packages/tracing): off unless an OTLP endpoint is set. */
  tracing: { endpoint: string | undefined; tracesEndpoint: string | undefined };
  stage: Stage | undefined;
  /** READPACK_STAGES: what one worker process consumes, when given as a list. */
  workerStages: readonly ConsumerRole[] | undefined;
  /** `npm start`: the roles that share one consumer process while each runs one consumer (SHARED_PROCESS_STAGES). */
  sharedProcessStages: readonly ConsumerRole[];
  /** `stages.mineru.consumers` is MINERU_CONSUMERS, or 1 with MINERU_URL and 0 without. */
  stages: Record<Stage, { concurrency: number; consumers: number }>;
  /**
   * LibreOffice conversion. `stages.convert.consumers` is CONVERT_CONSUMERS or 1; `consumersExplicit`
   * says whether it was given, since `npm start` turns an unset count into 0 when LibreOffice is missing.
   */
  convert: { consumersExplicit: boolean; timeoutMs: number; sofficePath: string | undefined };
  shutdownGraceMs: number;
}

export interface S3Config {
  bucket: string;
  /** Key prefix, empty or ending in `/`. */
  prefix: string;
  region: string;
  endpoint: string | undefined;
  forcePathStyle: boolean;
  sse: 'AES256' | 'aws:kms' | 'aws:kms:dsse' | undefined;
  sseKmsKeyId: string | undefined;
  multipartThresholdBytes: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset": `FOO= npm start` should not fail validation.
  const input = Object.fromEntries(VARIABLES.map((v) => [v.name, env[v.name] === '' ? undefined : env[v.name]]));
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '?'), message: issue.message })),
    );
  }
  const e: Env = parsed.data;
  if (e.STORAGE === 's3' && e.S3_BUCKET === undefined) throw new ConfigError([{ variable: 'S3_BUCKET', message: 'required with STORAGE=s3' }]);
  if (e.ASSET_DELIVERY === 'presigned' && e.STORAGE !== 's3') throw new ConfigError([{ variable: 'ASSET_DELIVERY', message: 'presigned needs STORAGE=s3' }]);
  const redisUrl = e.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // Validated by its schema (variables.ts), so a malformed REDIS_URL is a ConfigError at start.
  const redisKind = parseRedisUrl(redisUrl).kind;
  // OCR is CPU bound and its extra workers stop when idle, so by default it may use every core
  // (only while pages are in hand); the schema's own bound applies to the detected count too.
  const ocrConcurrency = e.OCR_CONCURRENCY ?? Math.min(availableParallelism(), 64);
  const trustedHosts = (e.TRUSTED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  return {
    env: e.READPACK_ENV,
    production: env.NODE_ENV === 'production' || e.READPACK_ENV !== 'development',
    redis: {
      url: redisUrl,
      kind: redisKind,
      explicit: e.REDIS_URL !== undefined,
      prefix: deploymentKeyPrefix(redisKind, e.READPACK_PREFIX),
      commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
      managed: e.REDIS_MANAGED,
    },
    http: {
      host: e.HOST,
      port: e.PORT,
      apiInstances: e.API_INSTANCES,
      publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
      trustedHosts,
      uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_MS,
      adminToken: e.ADMIN_TOKEN,
    },
    dataDir: e.DATA_DIR,
    storage: {
      kind: e.STORAGE,
      s3:
        e.STORAGE === 's3' && e.S3_BUCKET !== undefined
          ? {
              bucket: e.S3_BUCKET,
              prefix: e.S3_PREFIX,
              region: e.S3_REGION,
              endpoint: e.S3_ENDPOINT,
              forcePathStyle: e.S3_FORCE_PATH_STYLE,
              sse: e.S3_SSE,
              sseKmsKeyId: e.S3_SSE_KMS_KEY_ID,
              multipartThresholdBytes: e.S3_MULTIPART_THRESHOLD_BYTES,
            }
          : undefined,
      assetDelivery: e.ASSET_DELIVERY,
      assetUrlTtlSeconds: e.ASSET_URL_TTL_SECONDS,
    },
    limits: {
      maxUploadBytes: e.MAX_UPLOAD_BYTES,
      maxBatchFiles: e.MAX_BATCH_FILES,
      packageReadBudgetBytes: e.PACKAGE_READ_BUDGET_MB * 1024 * 1024,
      parseTimeoutMs: e.PARSE_TIMEOUT_MS,
      parseMaxHeapMb: e.PARSE_MAX_HEAP_MB,
      maxPages: e.MAX_PAGES,
      pdfSlices: { above: e.PDF_SLICE_ABOVE, pages: e.PDF_SLICE_PAGES, atOnce: e.PDF_SLICES_PER_CONSUMER },
      maxImagePixels: e.MAX_IMAGE_PIXELS,
      zip: { maxUncompressedBytes: e.MAX_ZIP_UNCOMPRESSED_BYTES, maxRatio: e.MAX_ZIP_RATIO, maxEntries: e.MAX_ZIP_ENTRIES },
    },
    ocr: {
      renderDpi: e.RENDER_DPI,
      minCharsPerPage: e.OCR_MIN_CHARS_PER_PAGE,
      defaultLang: e.OCR_DEFAULT_LANG,
      tessdataDir: e.TESSDATA_DIR,
      engine: e.OCR_ENGINE,
      warmWorkers: Math.min(e.OCR_WARM_WORKERS, ocrConcurrency),
      workerIdleMs: e.OCR_WORKER_IDLE_MS,
    },
    engine: { default: e.DEFAULT_ENGINE },
    mineru: {
      url: e.MINERU_URL?.replace(/\/+$/, ''),
      backend: e.MINERU_BACKEND,
      maxConcurrency: e.MINERU_MAX_CONCURRENCY,
      rate: { max: e.MINERU_RATE_MAX, windowMs: e.MINERU_RATE_WINDOW_MS },
      requestTimeoutMs: e.MINERU_REQUEST_TIMEOUT_MS,
      budgetMs: e.MINERU_BUDGET_MS,
      retryDelayMs: e.MINERU_RETRY_DELAY_MS,
      pollIntervalMs: e.MINERU_POLL_INTERVAL_MS,
      consumersExplicit: e.MINERU_CONSUMERS !== undefined,
    },
    webhooks: {
      secrets: tenantPairs('WEBHOOK_SECRETS', e.WEBHOOK_SECRETS, (v) => v.length >= 16 || 'a secret of at least 16 characters'),
      defaultUrls: tenantPairs('WEBHOOK_DEFAULT_URLS', e.WEBHOOK_DEFAULT_URLS, (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) || 'an http(s) URL'),
      allow: (e.WEBHOOK_ALLOW_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      attempts: e.WEBHOOK_ATTEMPTS,
      backoffMs: e.WEBHOOK_BACKOFF_MS,
      consumers: e.WEBHOOK_CONSUMERS,
    },
    events: { maxStreamsPerProcess: e.EVENT_STREAMS_PER_PROCESS, heartbeatMs: e.EVENT_HEARTBEAT_MS },
    tenancy: {
      apiKeys: e.API_KEYS,
      apiKeysFile: e.API_KEYS_FILE,
      uploadRatePerMinute: e.UPLOAD_RATE_PER_MINUTE,
      maxActiveJobsPerTenant: e.MAX_ACTIVE_JOBS_PER_TENANT,
      corsOrigins: (e.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
      adminViewerToken: e.ADMIN_VIEWER_TOKEN,
    },
    ttl: {
      queuedSeconds: e.QUEUED_TTL_SECONDS,
      processingSeconds: e.PROCESSING_TTL_SECONDS,
      resultSeconds: e.RESULT_TTL_SECONDS,
    },
    leases: { lockDurationMs: e.LOCK_DURATION_MS, stalledIntervalMs: e.STALLED_INTERVAL_MS },
    maintenance: { sweeperIntervalMs: e.SWEEPER_INTERVAL_MS, janitorIntervalMs: e.JANITOR_INTERVAL_MS },
    faults: { exitOnFilename: e.FAULT_EXIT_ON_FILENAME, busy: busyFault(e.FAULT_BUSY) },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, tracesEndpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT },
    stage: e.READPACK_STAGE,
    workerStages: e.READPACK_STAGES,
    sharedProcessStages: e.SHARED_PROCESS_STAGES,
    stages: Object.fromEntries(
      STAGES.map((stage) => {
        const name = stage.toUpperCase() as Uppercase<Stage>;
        // Without MINERU_URL nothing is routed to MinerU (engine-choice.ts, the API's engine check).
        const unset = stage === 'mineru' && e.MINERU_URL === undefined ? 0 : 1;
        return [stage, { concurrency: stage === 'ocr' ? ocrConcurrency : e[`${name}_CONCURRENCY`], consumers: e[`${name}_CONSUMERS`] ?? unset }];
      }),
    ) as Config['stages'],
    convert: { consumersExplicit: e.CONVERT_CONSUMERS !== undefined, timeoutMs: e.CONVERT_TIMEOUT_MS, sofficePath: e.SOFFICE_PATH },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
}

/** FAULT_BUSY (`<stage>:<ms>:<text>`, validated by its schema) as data. */
function busyFault(spec: string | undefined): Config['faults']['busy'] {
  if (spec === undefined) return undefined;
  const [stage = '', ms = '0', ...rest] = spec.split(':');
  return { stage, ms: Number(ms), filename: rest.join(':') };
}

/**
 * `tenant=value,tenant=value` (WEBHOOK_SECRETS, WEBHOOK_DEFAULT_URLS). Split at the first `=`, so
 * a value may contain `=` (a URL's query); `check` answers true or what the value should be.
 */
function tenantPairs(variable: string, spec: string | undefined, check: (value: string) => true | string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const [index, item] of (spec ?? '').split(',').entries()) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    const tenant = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    const verdict = at > 0 && value ? check(value) : 'tenant=value';
    if (verdict !== true || !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(tenant)) {
      throw new ConfigError([{ variable, message: `entry ${index + 1} is not tenant=<${verdict === true ? 'value' : verdict}>` }]);
    }
    pairs[tenant] = value;
  }
  return pairs;
}
