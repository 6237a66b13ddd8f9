import { createReadStream } from 'node:fs';
import { jobRefFields, type ExtractPayload, type FlowChild, type RenditionRef, type SourceRef } from '@readpack/queues';
// The version functions alone: @readpack/ocr's index would load tesseract.js into the extract consumer.
import { nativeTesseractVersion, TESSERACT_VERSION } from '@readpack/ocr/version';
import { ATTR, inSpan, SPAN } from '@readpack/tracing';
import { mergePdfSlicesInParts, pagesOf, parsedDocument, PDF_MEDIA_TYPE, pdfTextLayerOrigin, tablesOf, type ParsedDocument, type ParsedPage, type ParseInput, type ParseOptions, type PdfOutlineEntry } from '@readpack/parsers';
import { documentText } from '@readpack/reading-package';
import { ScriptTally } from '@readpack/ocr/script-language';
import { childValues } from '../child-results.js';
import { assembleInPlace } from './assemble.js';
import type { AssembledInPlace } from '../assembled-in-place.js';
import { putJson } from '../json-chunks.js';
import type { BlobPointer } from '@readpack/queues';
import { readPointer, slicePlan, slicesInOrder, storeSlice, textLayerRuns, type PageRange, type SliceDone, type StoredSlice } from '../pdf-slices.js';
import { withPdfParts } from '../pdf-split.js';
import { chooseEngine, complexityOf, ComplexityTally } from '../engine-choice.js';
import { pageLanguage, tallyOf } from '../ocr-language.js';
import { pagesNeedingOcr } from '../ocr-routing.js';
import { pdfPassword } from '../secrets.js';
import { isParted, storeImages, toExtraction, type ExtractionPart, type PartedExtraction, type PartPointer, type StoredExtraction, type StoredImage } from '../extraction.js';
import { classify, PermanentFailure } from '../failures.js';
import { CONVERTED_MEDIA_TYPES } from './convert.js';
import { defineStage, type StageContext } from '../stage.js';

/**
 * extract: parse the uploaded document in a parser thread (unless it goes to MinerU only), move
 * its embedded images into the blob store, store the extraction, choose the engine, and add the
 * document's assemble job with the children it waits for: a MinerU call, or one render → OCR
 * chain per page that needs OCR (ocr-routing.ts; an image is one such page). Every id in that
 * flow is derived from the job id, so a re-delivered extract (at-least-once) adds nothing new.
 * A document read whole with no children, in a process that consumes assemble too, is assembled
 * by this job instead (assembleInPlace): a hop through Redis back to the same process would only
 * add a queue round, a job and a stored copy of the extraction.
 *
 * A PDF of more than PDF_SLICE_ABOVE pages is read in slices instead: this job reads its page
 * count and outline only, and adds a merge job (an extract job) waiting on one extract job per
 * slice of pages, which any extract consumer takes. Each slice stores its pages and counts them;
 * the merge job runs the document-wide steps over the slices in page order and goes on from
 * there as this job would have (OCR pages, assemble).
 */
export const extractStage = defineStage({
  stage: 'extract',
  phase: 'extract',
  needs: ['parsePool', 'secrets'],
  failureOwner: 'job',
  async handle(payload, ctx) {
    if (payload.slice) return readSlice(payload, payload.slice, ctx);
    if (payload.merge) {
      // The merge runs on this thread and holds the merged document: parser threads left idle by
      // the slices would add their memory to it (docs/architecture.md, "Memory").
      const released = await ctx.parsePool.releaseIdleThreads();
      if (released) ctx.logger.debug('idle parser threads ended before the merge');
      const document = await readableDocument(payload, ctx);
      // Never in place: the merged document already sits in this extract consumer's memory.
      await routeAndAssemble(payload, document, await mergeSlices(payload, payload.merge, ctx), ctx, false);
      return undefined;
    }
    const { storage, logger } = ctx;
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    if (!payload.rendition && CONVERTED_MEDIA_TYPES.includes(payload.source.mediaType)) {
      await toConvert(payload, ctx, 'format');
      return undefined;
    }
    const document = await readableDocument(payload, ctx);
    const isImage = document.mediaType.startsWith('image/');
    let extraction: ReadExtraction | 'sliced' | undefined;
    try {
      extraction =
        payload.options.engine === 'mineru'
          ? undefined
          : isImage
            ? await imageExtraction(ctx)
            : await extractLocally(payload, document, ctx);
    } catch (error) {
      // word-extractor reads most DOC files, not all (fast-saved, Word 6/95): LibreOffice reads the rest.
      if (document.mediaType === 'application/msword' && classify(error).code === 'corrupt_document' && (await ctx.converterAvailable?.()) === true) {
        logger.info('word-extractor cannot read the DOC file; converting it with LibreOffice', { error: error instanceof Error ? error.message : String(error) });
        await toConvert(payload, ctx, 'unreadable');
        return undefined;
      }
      throw error;
    }
    if (extraction === 'sliced') return undefined;
    return routeAndAssemble(payload, document, extraction, ctx, ctx.assemblesHere);
  },
});

/**
 * What follows reading a document: choose the engine, and add the document's assemble job with
 * the children it waits for (a MinerU call, or a render → OCR chain per page that needs OCR) —
 * or, with none to wait for and `inPlace`, assemble it here.
 */
async function routeAndAssemble(payload: ExtractPayload, document: SourceRef, extraction: ReadExtraction | undefined, ctx: StageContext, inPlace: boolean): Promise<AssembledInPlace | undefined> {
  const { producer, state, logger, config, storage } = ctx;
  const isImage = document.mediaType.startsWith('image/');
  const engine = chooseEngine(payload.options, extraction && (() => extraction.routing.complexity()), document.mediaType, config);
  const ref = jobRefFields(payload);
  const children: FlowChild[] = [];
  let ocrPages: number[] = [];
  if (engine === 'mineru') {
    children.push({ name: 'mineru', payload: { ...ref, source: document, options: payload.options } });
  } else if (extraction?.routing.pages && (isImage || document.mediaType === 'application/pdf')) {
    // Only PDF pages and images can be rendered for OCR; slides (PPTX) are pages too, but their
    // text is the slide's own and a picture-only slide has nothing for render to draw from.
    const { pages } = extraction.routing;
    ocrPages = isImage ? [0] : pagesNeedingOcr(pages, config.ocr.minCharsPerPage);
    const kind = isImage ? 'image' : 'pdf-page';
    let scripts: Promise<ScriptTally> | undefined;
    const documentScripts = (): Promise<ScriptTally> => (scripts ??= extraction.routing.documentScripts());
    for (const page of ocrPages) {
      const lang = await pageLanguage(payload.options, pages, page, documentScripts);
      const pagePayload = { ...ref, source: document, options: payload.options, page };
      const ocrPayload = { ...pagePayload, ...(lang ? { lang } : {}) };
      // render runs first (the child), then ocr (its parent) reads the pixels it stored. Only
      // render opens the PDF, so only render gets the (still sealed) password.
      const renderPayload = { ...pagePayload, kind, ...(payload.secrets ? { secrets: payload.secrets } : {}) };
      children.push({ name: 'ocr', part: `p${page}`, payload: ocrPayload, children: [{ name: 'render', part: `p${page}`, payload: renderPayload }] });
    }
  }
  logger.info('extracted', { engine, ocrPages: ocrPages.length, children: children.length, ...extraction?.summary });
  // Progress counts pages for paged documents (text-layer pages are done now), else steps.
  const pageCount = extraction?.routing.pages?.length ?? 0;
  await state.progress(payload, pageCount > 0 ? { done: pageCount - ocrPages.length, total: pageCount } : { done: 1, total: 2 }, ocrPages.length > 0 ? 'ocr' : 'extract');
  const assemble = { ...jobRefFields(payload), source: payload.source, options: payload.options, ...(payload.secrets ? { secrets: payload.secrets } : {}) };
  if (inPlace && extraction && !isParted(extraction.read) && children.length === 0) {
    await assembleInPlace({ ...assemble, children: 0 }, extraction.read, ctx);
    return { assembledInPlace: true, pages: pageCount };
  }
  const stored = extraction && (await putJson(storage.blobs, extraction.read));
  // The document keeps the priority its tenant's admission gave it (fairness between tenants).
  await producer.addAssembleFlow({ ...assemble, extraction: stored && { sha256: stored.sha256 } }, children, ctx.job.opts.priority ? { priority: ctx.job.opts.priority } : {});
  return undefined;
}

/** What is read: the upload, or the convert stage's PDF of it (the package's source stays the upload). */
async function readableDocument(payload: ExtractPayload, { storage }: StageContext): Promise<SourceRef> {
  const document: SourceRef = payload.rendition
    ? { sha256: payload.rendition.sha256, filename: `${payload.source.filename}.pdf`, mediaType: PDF_MEDIA_TYPE, size: payload.rendition.size }
    : payload.source;
  // The upload itself is checked by the handler first; only the convert stage's PDF is another blob.
  if (payload.rendition && !(await storage.blobs.has(document.sha256))) {
    throw new PermanentFailure('source_missing', payload.rendition ? 'The converted PDF is no longer stored; upload the file again.' : 'The uploaded file is no longer stored; upload it again.');
  }
  return document;
}

/** What extract read: the extraction for assemble, what routing reads of the document, a summary for the log line. */
interface ReadExtraction {
  read: StoredExtraction;
  routing: Routing;
  summary: Record<string, unknown>;
}

/** What routing reads of a document: its pages, the engine rule's counts and its scripts, the last two when asked for. */
interface Routing {
  /** Its pages, when it is paged. A parted document's keep the text of the pages OCR reads only. */
  pages?: readonly RoutingPage[];
  complexity(): ComplexityTally;
  documentScripts(): Promise<ScriptTally>;
}

type RoutingPage = Pick<ParsedPage, 'index' | 'text' | 'charCount' | 'cidOrderings'>;

function routingOf(parsed: ParsedDocument): Routing {
  return { ...(parsed.pages ? { pages: parsed.pages } : {}), complexity: () => complexityOf(parsed), documentScripts: async () => tallyOf(parsed.pages ?? []) };
}

/**
 * Hands the document to the convert stage (`<jobId>-convert`), which adds its extract job on the
 * PDF. Fails at once when no convert consumer runs: the job would otherwise wait for ever.
 */
async function toConvert(payload: ExtractPayload, ctx: StageContext, reason: 'format' | 'unreadable'): Promise<void> {
  if ((await ctx.converterAvailable?.()) !== true) {
    throw new PermanentFailure('converter_unavailable', `Documents of type ${payload.source.mediaType} are read through LibreOffice, and no convert consumer is running.`);
  }
  await ctx.producer.add(
    'convert',
    { ...jobRefFields(payload), source: payload.source, options: payload.options, reason, ...(payload.secrets ? { secrets: payload.secrets } : {}) },
    ctx.job.opts.priority ? { priority: ctx.job.opts.priority } : {},
  );
  ctx.logger.info('sent to conversion', { reason, mediaType: payload.source.mediaType });
}

/** An image has no text layer: one empty page, read by OCR. */
async function imageExtraction({ config }: StageContext): Promise<ReadExtraction> {
  // The engine that will read it (OCR_ENGINE), as the page's own origin will say.
  const engine = config.ocr.engine === 'native' ? { parser: 'tesseract', version: nativeTesseractVersion() } : { parser: 'tesseract.js', version: TESSERACT_VERSION };
  const origin = { ...engine, engine: 'ocr' as const };
  const document: ParsedDocument = parsedDocument({ origin, body: [], pages: [{ index: 0 }] });
  return { read: toExtraction(document, []), routing: routingOf(document), summary: { parser: 'image', pages: 1 } };
}

function parseLimits(config: StageContext['config']): ParseOptions {
  const { zip } = config.limits;
  return { maxPages: config.limits.maxPages, maxZipEntries: zip.maxEntries, maxZipUncompressedBytes: zip.maxUncompressedBytes, maxZipRatio: zip.maxRatio };
}

function parseInput(payload: ExtractPayload, document: SourceRef, ctx: StageContext<'secrets'>, path: string): ParseInput {
  const password = pdfPassword(ctx.secrets, payload.secrets?.password, payload.jobId);
  return { path, mediaType: document.mediaType, ...(password === undefined ? {} : { password }) };
}

/** Parses the document in a parser thread and stores its images; a PDF over PDF_SLICE_ABOVE pages is handed to its slices instead (`sliced`). */
async function extractLocally(payload: ExtractPayload, document: SourceRef, ctx: StageContext<'parsePool' | 'secrets'>): Promise<ReadExtraction | 'sliced'> {
  const { storage, parsePool, config } = ctx;
  const { pdfSlices, maxPages } = config.limits;
  const sliceable = document.mediaType === PDF_MEDIA_TYPE && pdfSlices.above < maxPages;
  const parsed = await inSpan(SPAN.parse, { attributes: { [ATTR.mediaType]: document.mediaType } }, async (span) => {
    const result = await storage.blobs.withLocalFile(document.sha256, async (path) => {
      const input = parseInput(payload, document, ctx, path);
      if (!sliceable) return parsePool.parse(input, parseLimits(config));
      const plan = await parsePool.planPdf(input, parseLimits(config), pdfSlices.above);
      if (plan.kind === 'whole') return plan.document;
      // The plan opened the whole document in a parser thread, which would keep that memory under
      // the slices this consumer reads next (docs/architecture.md, "Memory"): ended if idle.
      await parsePool.releaseIdleThreads();
      // A PDF opened with a password is not split: its parts would be stored decrypted.
      return { ...plan, ranges: input.password === undefined ? await splitIntoSlices(path, plan.pages, ctx) : slicePlan(plan.pages, pdfSlices.pages) };
    });
    span?.setAttribute(ATTR.pages, 'kind' in result ? result.pages : (result.pages?.length ?? 0));
    return result;
  });
  if ('kind' in parsed) {
    await fanOutSlices(payload, parsed, ctx);
    return 'sliced';
  }
  return inSpan(SPAN.assetWrite, { attributes: { [ATTR.files]: parsed.images.length + 1 } }, async () => asRead(payload.rendition, parsed, await storeImages(storage.blobs, parsed.images)));
}

/**
 * What was read: the extraction for assemble (toExtraction: without the fields assemble derives),
 * the whole parsed document for routing, a summary for the log line. A converted document's origin
 * is its converter (the package's `origin`); its pages and blocks keep the origin of what read the PDF.
 */
function asRead(rendition: RenditionRef | undefined, parsed: ParsedDocument, images: StoredImage[]): ReadExtraction {
  const origin = rendition ? { parser: rendition.parser, version: rendition.version, engine: parsed.origin.engine } : parsed.origin;
  const summary = { parser: parsed.origin.parser, pages: parsed.pages?.length, tables: parsed.tables.length, images: images.length, chars: parsed.text.length };
  return { read: { ...toExtraction(parsed, images), origin }, routing: routingOf(parsed), summary };
}

/**
 * A large PDF: its outline stored for the merge, progress counting its pages from 0, and the
 * merge job added with one child per slice (ids from the job id: a re-delivery adds nothing).
 */
async function fanOutSlices(payload: ExtractPayload, plan: { pages: number; outline: PdfOutlineEntry[]; ranges: SliceRange[] }, { storage, state, producer, config, logger, job }: StageContext): Promise<void> {
  const outline = plan.outline.length > 0 ? await storage.blobs.putBuffer(Buffer.from(JSON.stringify(plan.outline))) : undefined;
  const { ranges } = plan;
  await state.progress(payload, { done: 0, total: plan.pages }, 'extract');
  const merge: ExtractPayload = { ...payload, merge: { pages: plan.pages, ...(outline ? { outline: { sha256: outline.sha256, size: outline.size } } : {}) } };
  await producer.addExtractSlices(merge, ranges.map((slice) => ({ ...payload, slice })), job.opts.priority ? { priority: job.opts.priority } : {});
  logger.info('sliced', { pages: plan.pages, slices: ranges.length, slicePages: config.limits.pdfSlices.pages, split: ranges.every((r) => r.part !== undefined) });
}

/** A slice's pages, and the PDF of those pages alone when the document could be split. */
type SliceRange = PageRange & { part?: BlobPointer };

/** qpdf on PATH (Debian package `qpdf`); without it slices open the whole document. */
const QPDF = 'qpdf';

/**
 * The document split into one PDF per slice (pdf-split.ts), each stored as a blob for its slice
 * job; when it cannot be split, the slices of the whole document as before (logged with why).
 */
async function splitIntoSlices(path: string, pages: number, { storage, config, logger }: StageContext): Promise<SliceRange[]> {
  const size = config.limits.pdfSlices.pages;
  return withPdfParts(path, pages, size, { qpdf: QPDF, timeoutMs: config.limits.parseTimeoutMs }, async (outcome) => {
    if (outcome.kind === 'unsplit') {
      logger.warn('the PDF is read in slices of the whole document: it could not be split', { reason: outcome.reason, detail: outcome.detail });
      return slicePlan(pages, size);
    }
    const ranges = slicePlan(pages, size, false);
    const parts: SliceRange[] = [];
    for (const [i, range] of ranges.entries()) {
      const stored = await storage.blobs.putStream(createReadStream(outcome.files[i]!));
      parts.push({ ...range, part: { sha256: stored.sha256, size: stored.size } });
    }
    return parts;
  });
}

/** One slice of a large PDF: its pages read and stored, its text-layer pages counted. Returns where it is, for the merge. */
async function readSlice(payload: ExtractPayload, range: SliceRange, ctx: StageContext<'parsePool' | 'secrets'>): Promise<SliceDone> {
  const { storage, parsePool, config, state, logger } = ctx;
  const document = await readableDocument(payload, ctx);
  const { from, to, part } = range;
  if (part && !(await storage.blobs.has(part.sha256))) throw new PermanentFailure('source_missing', 'A part of the split PDF is no longer stored; upload the file again.');
  // The slice's own PDF when the document was split: its first page is page `from`.
  const slice = await storage.blobs.withLocalFile(part?.sha256 ?? document.sha256, (path) =>
    parsePool.parsePdfSlice(parseInput(payload, document, ctx, path), parseLimits(config), part ? { from, to, firstPage: from } : { from, to }),
  );
  // A part short of its pages would leave a silent gap in the document (the merge counts ranges).
  if (part && slice.pages.length !== to - from) throw new PermanentFailure('internal_error', `the split PDF's part for pages ${from}–${to - 1} holds ${slice.pages.length} of them`);
  const done = await storeSlice(storage, range, slice);
  for (const run of textLayerRuns(slice.pages, config.ocr.minCharsPerPage)) await state.pagesDone(payload, run.from, run.to - run.from);
  logger.info('slice read', { from: range.from, to: range.to, images: slice.images.length, bytes: done.blob.size });
  return done;
}

/**
 * The merge job: the slices it waited for, merged in page order (one slice's pages in memory at a
 * time) and stored part by part as the document's extraction (PartedExtraction), with what
 * routing reads of it gathered as the parts go by.
 */
async function mergeSlices(payload: ExtractPayload, merge: { pages: number; outline?: { sha256: string; size: number } | undefined }, { storage, job, config }: StageContext): Promise<ReadExtraction> {
  const slices = slicesInOrder(await childValues<SliceDone>(job), merge.pages);
  const outline = merge.outline ? (JSON.parse((await readPointer(storage, merge.outline)).toString('utf8')) as PdfOutlineEntry[]) : [];
  const images: StoredImage[][] = slices.map(() => []);
  const sources = slices.map((slice, i) => ({
    pageCount: slice.to - slice.from,
    sizes: slice.sizes,
    load: async () => {
      const stored = JSON.parse((await readPointer(storage, slice.blob)).toString('utf8')) as StoredSlice;
      images[i] = stored.images;
      return stored.pages;
    },
  }));
  const layerOrigin = pdfTextLayerOrigin();
  const parts: PartPointer[] = [];
  const pages: RoutingPage[] = [];
  // The engine rule reads the whole text; it is tallied only when the rule will be asked.
  const complexity = payload.options.engine === 'auto' && config.mineru.url ? new ComplexityTally() : undefined;
  let chars = 0;
  let tables = 0;
  await mergePdfSlicesInParts(sources, outline, layerOrigin, async (part) => {
    const partPages = pagesOf(part.pages, part.body, layerOrigin);
    partPages.forEach((page, i) => {
      const cidOrderings = part.pages[i]?.cidOrderings;
      if (cidOrderings) page.cidOrderings = cidOrderings;
    });
    const stored: ExtractionPart = { body: part.body, furniture: part.furniture, pages: partPages };
    const blob = await putJson(storage.blobs, stored);
    parts.push({ sha256: blob.sha256, size: blob.size, pages: partPages.length });
    const ocr = new Set(pagesNeedingOcr(partPages, config.ocr.minCharsPerPage));
    for (const { index, text, charCount, cidOrderings } of partPages) pages.push({ index, charCount, text: ocr.has(index) ? text : '', ...(cidOrderings ? { cidOrderings } : {}) });
    const text = documentText({ body: part.body, furniture: part.furniture });
    const partTables = tablesOf(part.body).length;
    complexity?.add(text, partTables, partPages);
    chars += text.length;
    tables += partTables;
  });
  const origin = payload.rendition ? { parser: payload.rendition.parser, version: payload.rendition.version, engine: layerOrigin.engine } : layerOrigin;
  const read: PartedExtraction = { origin, images: images.flat(), parts };
  const routing: Routing = {
    pages,
    complexity: () => {
      if (!complexity) throw new Error('the engine rule was asked about a document it was not tallied for');
      return complexity;
    },
    // Only when an OCR page has neither fonts nor text of its own to go by: the parts are read again.
    documentScripts: async () => {
      const tally = new ScriptTally();
      for (const pointer of parts) {
        const part = JSON.parse((await readPointer(storage, pointer)).toString('utf8')) as ExtractionPart;
        for (const page of part.pages) tally.add(page.text);
      }
      return tally;
    },
  };
  return { read, routing, summary: { parser: layerOrigin.parser, pages: pages.length, tables, images: read.images.length, chars, parts: parts.length } };
}
