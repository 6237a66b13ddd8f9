import { z } from 'zod';

/**
 * Job payloads carry references, never document bytes: blobs are named by sha256 in the blob
 * store (DATA_DIR), so Redis holds a few hundred bytes per job whatever the document's size.
 */
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const sourceRef = z.object({
  sha256,
  filename: z.string().max(1_024),
  mediaType: z.string().max(200),
  size: z.number().int().nonnegative(),
});

/**
 * Where the job sits in its document's trace (W3C Trace Context, written by QueueProducer from
 * the span that enqueued it; packages/tracing). Absent when tracing is off. A redelivered job
 * keeps it, so a takeover continues the same trace.
 */
export const traceCarrier = z
  .object({
    traceparent: z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/),
    tracestate: z.string().max(512).optional(),
  })
  .strict();

/** What every payload has: which job record it drives (and its batch, to keep that alive). */
const jobRef = {
  jobId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/),
  tenant: z.string().min(1).max(128),
  batchId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/).optional(),
  /** Attempt series (1 unless an operator replayed the job); absent means 1. */
  series: z.number().int().positive().optional(),
  trace: traceCarrier.optional(),
};

export type JobRefFields = { jobId: string; tenant: string; batchId?: string | undefined; series?: number | undefined };

/**
 * The fields a stage passes on to the next stage unchanged: the job, its batch and its attempt
 * series. Not `trace`: the next job hangs below the span that enqueues it, not below this job's parent.
 */
export function jobRefFields(payload: JobRefFields): JobRefFields {
  return { jobId: payload.jobId, tenant: payload.tenant, batchId: payload.batchId, series: payload.series };
}

const ocrLanguages = z.string().regex(/^[a-z_]{3,10}(\+[a-z_]{3,10}){0,4}$/);

/** How the client asked for the document to be parsed (part of the dedup identity). */
export const documentOptions = z
  .object({
    /** local: our parsers (+OCR); mineru: MinerU or fail; auto: MinerU for complex PDFs, local otherwise or as fallback. */
    engine: z.enum(['local', 'mineru', 'auto']),
    /**
     * Tesseract languages joined by `+`, e.g. `eng+chi_sim`, or `auto`: each page's language is
     * chosen from the document (its CID fonts, its text's scripts, OSD on the pixels).
     */
    ocrLang: z.union([z.literal('auto'), ocrLanguages]),
    /** Present when the upload named no language and `ocrLang` is the deployment's default (OCR_DEFAULT_LANG). */
    ocrLangDefaulted: z.literal(true).optional(),
  })
  .strict();

/**
 * Secrets the consumer needs, sealed (AES-GCM, @readpack/secrets) with the job id as context: Redis
 * and Bull Board only ever see ciphertext. Today: the user password of an encrypted PDF.
 */
export const sealedSecrets = z.object({ password: z.string().max(1_000).optional() }).strict();

/**
 * A PDF rendition of the upload, made by the convert stage (LibreOffice): the document is read
 * from it, while the package's `source` stays the original upload. `parser`/`version` name the
 * converter, and become the package's `origin`.
 */
export const renditionRef = z
  .object({ sha256, size: z.number().int().nonnegative(), parser: z.string().min(1).max(100), version: z.string().min(1).max(100) })
  .strict();

/** A blob written by a stage for a later one, named by its sha256 and checked against its size when read. */
export const blobPointer = z.object({ sha256, size: z.number().int().nonnegative() }).strict();

/**
 * A large PDF is read in slices of pages, each its own extract job (a child of the document's
 * merge job, itself an extract job). `slice`: this job reads pages `from` to `to` - 1. `merge`:
 * this job merges the slices it waited for (`pages` in all; the outline the first extract job
 * read, when the PDF has one). A slice's `part`, when the first extract job could split the PDF,
 * is a PDF of its pages alone (its first page is page `from`), which the slice opens instead of
 * the whole document.
 */
const slicing = {
  slice: z.object({ from: z.number().int().nonnegative(), to: z.number().int().positive(), part: blobPointer.optional() }).strict().optional(),
  merge: z.object({ pages: z.number().int().positive(), outline: blobPointer.optional() }).strict().optional(),
};

export const extractPayload = z
  .object({ ...jobRef, source: sourceRef, options: documentOptions, secrets: sealedSecrets.optional(), rendition: renditionRef.optional(), ...slicing })
  .strict()
  .refine((p) => !(p.slice && p.merge), { message: 'an extract job is a slice or a merge, not both' });

/**
 * One upload to convert to PDF. `reason` says why: the format is read only through LibreOffice, or
 * a DOC that word-extractor could not read. `pdf` is written into the job by the consumer once the
 * PDF is stored (job.updateData), so a re-delivered job re-uses it instead of converting again.
 */
export const convertPayload = z
  .object({
    ...jobRef,
    source: sourceRef,
    options: documentOptions,
    secrets: sealedSecrets.optional(),
    reason: z.enum(['format', 'unreadable']),
    pdf: renditionRef.optional(),
  })
  .strict();

/** One page to render (a PDF page, or the uploaded image itself) into pixels for OCR. */
export const renderPayload = z
  .object({
    ...jobRef,
    source: sourceRef,
    options: documentOptions,
    secrets: sealedSecrets.optional(),
    page: z.number().int().nonnegative(),
    kind: z.enum(['pdf-page', 'image']),
  })
  .strict();

/** One rendered page to read; its render child's return value says where the pixels are. */
export const ocrPayload = z
  .object({
    ...jobRef,
    source: sourceRef,
    options: documentOptions,
    page: z.number().int().nonnegative(),
    /**
     * The page's language as extract chose it (the request, the document's fonts or text, the
     * default); absent: the OCR stage decides from the pixels (OSD).
     */
    lang: z.object({ code: ocrLanguages, source: z.enum(['request', 'font', 'text', 'default']) }).strict().optional(),
  })
  .strict();

/** One document to MinerU; the parent assemble job receives the result reference. */
export const mineruPayload = z.object({ ...jobRef, source: sourceRef, options: documentOptions }).strict();

export const assemblePayload = z
  .object({
    ...jobRef,
    source: sourceRef,
    options: documentOptions,
    /**
     * The extract stage's output (a JSON ParsedDocument without image bytes) in the blob store;
     * absent when the document went to MinerU only (engine=mineru).
     */
    extraction: z.object({ sha256 }).optional(),
    /**
     * How many stage jobs this job waits for, set by addAssembleFlow. 0: there are no children's
     * values to read, and assemble does not ask Redis for them. Absent (a job added before the
     * field existed): assemble reads them.
     */
    children: z.number().int().nonnegative().optional(),
    /** The upload's sealed secrets, carried for a dead-letter replay, which re-runs the document from extract. */
    secrets: sealedSecrets.optional(),
  })
  .strict();

export type SourceRef = z.infer<typeof sourceRef>;
export type DocumentOptions = z.infer<typeof documentOptions>;
export type MineruPayload = z.infer<typeof mineruPayload>;
export type RenderPayload = z.infer<typeof renderPayload>;
export type OcrPayload = z.infer<typeof ocrPayload>;
export type ExtractPayload = z.infer<typeof extractPayload>;
export type ConvertPayload = z.infer<typeof convertPayload>;
export type RenditionRef = z.infer<typeof renditionRef>;
export type BlobPointer = z.infer<typeof blobPointer>;
export type AssemblePayload = z.infer<typeof assemblePayload>;
