/**
 * Every code a failed job (or a failed page of a done job) can carry: one closed union, defined
 * once, here. Each code says who can act on it, whether a consumer retries it, the HTTP status
 * that means the same thing (for clients that map job outcomes onto HTTP), and the message a
 * client is shown. docs/errors.md's "Failed jobs" table is generated from this object
 * (renderJobErrorTable; a test keeps the file in sync), so a code cannot exist undocumented.
 *
 * - `blame: 'document'`: the user's file caused it (damaged, encrypted, beyond a limit). The job
 *   ends `failed` with the code and is counted, but it is NOT dead-lettered: replaying it cannot
 *   help, and user mistakes would drown real incidents.
 * - `blame: 'operator'`: something an operator can act on (a dependency down, a deployment
 *   problem, a consumer killed again and again, a bug). When it ends a job, the job goes to its
 *   stage's dead-letter queue, from where it can be replayed once fixed.
 * - `retry: 'backoff'`: the consumer retries with the queue's backoff; the code is recorded when
 *   the attempts run out. `retry: 'never'`: the job (or page) fails at once.
 */
export interface JobErrorSpec {
  blame: 'document' | 'operator';
  retry: 'never' | 'backoff';
  http: number;
  /** The default message: what happened, for a human. */
  message: string;
  /** When a job gets this code (documentation). */
  when: string;
  /**
   * Who records it when not a consumer: the API (the job never reached a queue) or the sweeper
   * (no queue holds the job any more). Neither has a queue job to dead-letter.
   */
  recordedBy?: 'api' | 'sweeper';
}

export const JOB_ERRORS = {
  corrupt_document: { blame: 'document', retry: 'never', http: 422, message: 'The file is damaged or not what its type says.', when: 'the file is damaged or not what its type says' },
  encrypted_document: { blame: 'document', retry: 'never', http: 422, message: 'The document is password-protected.', when: 'password-protected (no password, or a wrong one)' },
  empty_document: { blame: 'document', retry: 'never', http: 422, message: 'The document has no pages.', when: 'a PDF with no pages' },
  unsupported_media_type: { blame: 'document', retry: 'never', http: 415, message: 'Readpack does not parse this type of file.', when: 'the bytes are of a type no stage parses' },
  unsupported_content: {
    blame: 'document',
    retry: 'never',
    http: 422,
    message: 'The document uses content or features Readpack does not parse.',
    when: 'parseable type, but content beyond limits or features (also: an OOXML part with a DTD, `<!DOCTYPE`, which OPC forbids — entity expansion and external entities are refused before any XML parser runs)',
  },
  unsupported_image: { blame: 'document', retry: 'never', http: 415, message: 'The image format cannot be decoded.', when: 'an uploaded image whose format the renderer cannot decode' },
  too_many_pages: { blame: 'document', retry: 'never', http: 413, message: 'The document has more pages than allowed.', when: 'more pages than `MAX_PAGES`' },
  archive_too_large: {
    blame: 'document',
    retry: 'never',
    http: 413,
    message: 'The document archive is beyond the size limits.',
    when: 'a DOCX/XLSX whose ZIP is beyond the limits (zip bombs): more entries than `MAX_ZIP_ENTRIES`, a declared total uncompressed size over `MAX_ZIP_UNCOMPRESSED_BYTES`, or an entry over 1 MiB compressed beyond `MAX_ZIP_RATIO`:1 — all read from the central directory before anything is inflated — or an entry that really inflates past its declared size (caught while streaming, before any parser sees it)',
  },
  image_too_large: { blame: 'document', retry: 'never', http: 413, message: 'The image has more pixels than allowed.', when: 'an uploaded image has more pixels than `MAX_IMAGE_PIXELS` (refused from its header, before decoding: decompression bombs)' },
  page_too_large: { blame: 'document', retry: 'never', http: 413, message: 'The page is too large to render.', when: 'a page to render would have more pixels than `MAX_IMAGE_PIXELS` even at the lowest resolution' },
  render_failed: { blame: 'document', retry: 'never', http: 422, message: 'The page could not be rendered.', when: 'a page pdfjs cannot render' },
  timeout: { blame: 'document', retry: 'never', http: 422, message: 'Parsing took longer than allowed.', when: 'a parse ran past `PARSE_TIMEOUT_MS`' },
  resource_limit: { blame: 'document', retry: 'never', http: 413, message: 'The document needs more memory than a parser may use.', when: 'a parse needed more memory than `PARSE_MAX_HEAP_MB`' },
  mineru_rejected: { blame: 'document', retry: 'never', http: 422, message: 'MinerU refused the document.', when: 'engine=mineru: MinerU refused the file (400, its message); engine=auto falls back to local instead' },
  ocr_invalid_language: { blame: 'document', retry: 'never', http: 400, message: 'The OCR language is not valid.', when: 'the requested OCR language is not a tesseract language code' },
  page_out_of_range: { blame: 'operator', retry: 'never', http: 500, message: 'A page that does not exist was sent to render.', when: 'a render job for a page the document does not have (a bug)' },
  ocr_language_data_missing: { blame: 'operator', retry: 'never', http: 500, message: 'The OCR language data is not installed.', when: 'OCR language data missing on the consumer (`TESSDATA_DIR`)' },
  ocr_language_data_invalid: { blame: 'operator', retry: 'never', http: 500, message: 'The OCR language data is damaged.', when: 'OCR language data present but damaged' },
  ocr_invalid_image: { blame: 'operator', retry: 'never', http: 500, message: 'The rendered page could not be read by OCR.', when: 'the pixels render produced cannot be read by OCR (a bug)' },
  secret_unavailable: {
    blame: 'operator',
    retry: 'never',
    http: 500,
    message: 'The document password cannot be opened on this deployment.',
    when: 'the sealed PDF password in the job cannot be opened on this deployment (another `DATA_DIR/secret.key`); upload again',
  },
  mineru_unavailable: { blame: 'operator', retry: 'backoff', http: 503, message: 'MinerU is unavailable.', when: 'engine=mineru: MinerU down or erroring after 6 attempts (or not configured); engine=auto falls back to local instead' },
  mineru_failed: { blame: 'operator', retry: 'never', http: 502, message: 'MinerU failed to parse the document.', when: 'engine=mineru: MinerU failed the task' },
  mineru_timeout: { blame: 'operator', retry: 'never', http: 504, message: 'MinerU did not finish in time.', when: 'engine=mineru: past `MINERU_BUDGET_MS`, counted from the first submission by Redis time' },
  conversion_failed: { blame: 'document', retry: 'never', http: 422, message: 'LibreOffice could not turn the file into a PDF.', when: 'LibreOffice could not turn the file into a PDF (it cannot load it, or crashed on it); the message has what soffice said' },
  conversion_timeout: { blame: 'document', retry: 'never', http: 422, message: 'Converting the file took longer than allowed.', when: 'a conversion ran past `CONVERT_TIMEOUT_MS`; the soffice process group was killed' },
  converter_unavailable: { blame: 'operator', retry: 'never', http: 503, message: 'No converter runs for this type of file.', when: 'a file to convert (a DOC word-extractor cannot read) while no convert consumer runs' },
  source_missing: { blame: 'operator', retry: 'never', http: 410, message: 'The uploaded bytes are no longer stored; upload the file again.', when: 'the uploaded bytes (or an intermediate result) are no longer stored' },
  invalid_payload: { blame: 'operator', retry: 'never', http: 500, message: 'The job payload is invalid.', when: 'a malformed queue message (a bug or tampering)' },
  enqueue_failed: { blame: 'operator', retry: 'never', http: 503, message: 'The job could not be queued; upload again.', when: 'the upload was stored but could not be queued; upload again (set by the API: never queued, so never dead-lettered)', recordedBy: 'api' },
  orphaned: { blame: 'operator', retry: 'never', http: 500, message: 'The job lost its consumer and no queue holds it any more; upload it again.', when: 'the sweeper found the job with no live lease and no queue job (nothing to dead-letter)', recordedBy: 'sweeper' },
  stalled: {
    blame: 'operator',
    retry: 'never',
    http: 500,
    message: 'The job kept stopping its consumer (killed or crashed) and was given up (poison document bound).',
    when: 'the job kept losing its consumer: stalled more than `maxStalledCount` times, or started more than `maxStartedAttempts` times (poison document bound)',
  },
  internal_error: { blame: 'operator', retry: 'backoff', http: 500, message: 'Readpack failed to process the document.', when: "anything else, after the stage's attempts ran out" },
} as const satisfies Record<string, JobErrorSpec>;

export type JobErrorCode = keyof typeof JOB_ERRORS;

export const JOB_ERROR_CODES = Object.keys(JOB_ERRORS) as JobErrorCode[];

export function isJobErrorCode(value: unknown): value is JobErrorCode {
  return typeof value === 'string' && Object.hasOwn(JOB_ERRORS, value);
}

/** Whether a job that ends with `code` belongs in a dead-letter queue (see `blame` and `recordedBy`). */
export function deadLettered(code: JobErrorCode): boolean {
  const spec: JobErrorSpec = JOB_ERRORS[code];
  return spec.blame === 'operator' && spec.recordedBy === undefined;
}

/** The "Failed jobs" table of docs/errors.md, generated (`npm run docs:errors`). */
export function renderJobErrorTable(): string {
  const lines = ['| code | HTTP | retried? | dead-lettered? | meaning |', '| --- | ---: | --- | --- | --- |'];
  for (const code of JOB_ERROR_CODES) {
    const spec: JobErrorSpec = JOB_ERRORS[code];
    const retried = spec.retry === 'backoff' ? 'yes, then terminal' : 'no';
    const dlq = deadLettered(code) ? 'yes' : spec.blame === 'document' ? 'no (counted)' : `no (${spec.recordedBy ?? 'consumer'} records it)`;
    lines.push(`| \`${code}\` | ${spec.http} | ${retried} | ${dlq} | ${spec.when} |`);
  }
  return lines.join('\n');
}

const TABLE_START = '<!-- job-errors -->';
const TABLE_END = '<!-- /job-errors -->';

/** docs/errors.md with its generated table (between the job-errors markers) rewritten from JOB_ERRORS. */
export function spliceJobErrorTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/errors.md lacks the ${TABLE_START} … ${TABLE_END} markers`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${renderJobErrorTable()}\n${doc.slice(end)}`;
}
