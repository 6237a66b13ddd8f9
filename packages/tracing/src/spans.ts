import type { Stage } from '@readpack/config';

/**
 * Every span Readpack records, by name: a closed set, so a dashboard or the benchmark's summary
 * can rely on the names, and a typo is a type error. The tree of one document is drawn in
 * docs/operations.md ("Tracing").
 */
export const SPAN = {
  /** Root: the upload request in the API, from its first byte to the 202. */
  upload: 'upload',
  /** The multipart body spooled to disk (sha256 computed on the way). */
  uploadReceive: 'upload.receive',
  /** Spooled files adopted into the blob store. */
  uploadStore: 'upload.store',
  /** The tenant's active-job admission (429 beyond its limit). */
  admission: 'admission',
  /** The job record created (or joined, for an upload whose content is running). */
  stateCreate: 'state.create',
  /** One stage job added to its queue; the job carries this span's context. */
  enqueue: 'queue.enqueue',
  /** A document's assemble job added with its children (pages, MinerU); each child carries this span's context. */
  fanOut: 'queue.fan_out',
  /** From the job's enqueue to a consumer taking it (recorded afterwards with its real start time). */
  queueWait: 'queue.wait',
  /** The same for a flow parent (assemble, a page's OCR): waiting for its children, then in the queue. */
  fanIn: 'queue.fan_in',
  /** A consumer taking the job's lease (record → processing). */
  stateStart: 'state.start',
  /** The document parsed in a parser thread (extract). */
  parse: 'parse',
  /** Intermediate results and embedded images written to the blob store. */
  assetWrite: 'asset.write',
  /** One page rendered into pixels (render). */
  renderPage: 'render.page',
  /** One page read by OCR (ocr). */
  ocrPage: 'ocr.page',
  /** The LibreOffice conversion to PDF (convert). */
  convert: 'convert.libreoffice',
  /** The children's results read and the reading package built (fan-in). */
  assemble: 'assemble.build',
  /** The reading package written to the package store. */
  packageWrite: 'package.write',
  /** The record's terminal write: `done` with the package, or `failed` with a code. */
  terminalWrite: 'state.terminal',
} as const;

export type FixedSpanName = (typeof SPAN)[keyof typeof SPAN];

/** The handler span of a stage job, e.g. `stage.extract`: everything the consumer does for it. */
export type StageSpanName = `stage.${Stage}`;

export type SpanName = FixedSpanName | StageSpanName;

export function stageSpan(stage: Stage): StageSpanName {
  return `stage.${stage}`;
}

/**
 * Span attributes, also a closed set. Identifiers only (job, batch, stage, tenant, page, sizes):
 * never document content, file names or secrets.
 */
export const ATTR = {
  jobId: 'readpack.job.id',
  batchId: 'readpack.batch.id',
  tenant: 'readpack.tenant',
  stage: 'readpack.stage',
  page: 'readpack.page',
  pages: 'readpack.pages',
  children: 'readpack.children',
  /** BullMQ's attempt number (a retry after a failed attempt counts up). */
  attempt: 'readpack.attempt',
  /** Every start of the job, takeovers after a dead consumer included (BullMQ's attemptsStarted). */
  start: 'readpack.start',
  series: 'readpack.series',
  mediaType: 'readpack.media_type',
  sizeBytes: 'readpack.size_bytes',
  files: 'readpack.files',
  outcome: 'readpack.outcome',
  errorCode: 'readpack.error.code',
  /** OpenTelemetry messaging conventions: the queue and BullMQ's own job id. */
  queue: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  httpStatus: 'http.response.status_code',
} as const;

export type AttributeName = (typeof ATTR)[keyof typeof ATTR];
export type SpanAttributes = Partial<Record<AttributeName, string | number | boolean>>;
