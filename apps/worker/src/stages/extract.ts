import { jobRefFields, type ExtractPayload, type FlowChild, type RenditionRef, type SourceRef } from '@readpack/queues';
// The version functions alone: @readpack/ocr's index would load tesseract.js into the extract consumer.
import { nativeTesseractVersion, TESSERACT_VERSION } from '@readpack/ocr/version';
import { parsedDocument, type ParsedDocument } from '@readpack/parsers';
import { ATTR, inSpan, SPAN } from '@readpack/tracing';
import { chooseEngine } from '../engine-choice.js';
import { pageLanguage } from '../ocr-language.js';
import { pagesNeedingOcr } from '../ocr-routing.js';
import { pdfPassword } from '../secrets.js';
import type { Extraction } from '../extraction.js';
import { classify, PermanentFailure } from '../failures.js';
import { CONVERTED_MEDIA_TYPES } from './convert.js';
import { defineStage, type StageContext } from '../stage.js';

/**
 * extract: parse the uploaded document in a parser thread (unless it goes to MinerU only), move
 * its embedded images into the blob store, store the extraction, choose the engine, and add the
 * document's assemble job with the children it waits for: a MinerU call, or one render → OCR
 * chain per page that needs OCR (ocr-routing.ts; an image is one such page). Every id in that
 * flow is derived from the job id, so a re-delivered extract (at-least-once) adds nothing new.
 */
export const extractStage = defineStage({
  stage: 'extract',
  phase: 'extract',
  needs: ['parsePool', 'secrets'],
  failureOwner: 'job',
  async handle(payload, ctx) {
    const { storage, producer, state, logger, config } = ctx;
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    if (!payload.rendition && CONVERTED_MEDIA_TYPES.includes(payload.source.mediaType)) {
      await toConvert(payload, ctx, 'format');
      return;
    }
    // What is read: the upload, or the convert stage's PDF of it (the package's source stays the upload).
    const document: SourceRef = payload.rendition
      ? { sha256: payload.rendition.sha256, filename: `${payload.source.filename}.pdf`, mediaType: 'application/pdf', size: payload.rendition.size }
      : payload.source;
    // The upload itself was checked above; only the convert stage's PDF is another blob.
    if (payload.rendition && !(await storage.blobs.has(document.sha256))) {
      throw new PermanentFailure('source_missing', 'The converted PDF is no longer stored; upload the file again.');
    }
    const isImage = document.mediaType.startsWith('image/');
    let extraction: StoredExtraction | undefined;
    try {
      extraction =
        payload.options.engine === 'mineru'
          ? undefined
          : isImage
            ? await imageExtraction(ctx)
            : await extractLocally(document.sha256, document.mediaType, pdfPassword(ctx.secrets, payload.secrets?.password, payload.jobId), ctx, payload.rendition);
    } catch (error) {
      // word-extractor reads most DOC files, not all (fast-saved, Word 6/95): LibreOffice reads the rest.
      if (document.mediaType === 'application/msword' && classify(error).code === 'corrupt_document' && (await ctx.converterAvailable?.()) === true) {
        logger.info('word-extractor cannot read the DOC file; converting it with LibreOffice', { error: error instanceof Error ? error.message : String(error) });
        await toConvert(payload, ctx, 'unreadable');
        return;
      }
      throw error;
    }
    const engine = chooseEngine(payload.options, extraction?.document, document.mediaType, config);
    const ref = jobRefFields(payload);
    const children: FlowChild[] = [];
    let ocrPages: number[] = [];
    if (engine === 'mineru') {
      children.push({ name: 'mineru', payload: { ...ref, source: document, options: payload.options } });
    } else if (extraction?.document.pages && (isImage || document.mediaType === 'application/pdf')) {
      // Only PDF pages and images can be rendered for OCR; slides (PPTX) are pages too, but their
      // text is the slide's own and a picture-only slide has nothing for render to draw from.
      ocrPages = isImage ? [0] : pagesNeedingOcr(extraction.document.pages, config.ocr.minCharsPerPage);
      const kind = isImage ? 'image' : 'pdf-page';
      for (const page of ocrPages) {
        const lang = pageLanguage(payload.options, extraction.document.pages, page);
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
    const pageCount = extraction?.document.pages?.length ?? 0;
    await state.progress(payload, pageCount > 0 ? { done: pageCount - ocrPages.length, total: pageCount } : { done: 1, total: 2 }, ocrPages.length > 0 ? 'ocr' : 'extract');
    // The document keeps the priority its tenant's admission gave it (fairness between tenants).
    await producer.addAssembleFlow(
      {
        ...jobRefFields(payload),
        source: payload.source,
        options: payload.options,
        extraction: extraction && { sha256: extraction.sha256 },
        ...(payload.secrets ? { secrets: payload.secrets } : {}),
      },
      children,
      ctx.job.opts.priority ? { priority: ctx.job.opts.priority } : {},
    );
  },
});

/** What extract stored for assemble, and what it read (for routing and the log line). */
interface StoredExtraction {
  sha256: string;
  document: ParsedDocument;
  summary: Record<string, unknown>;
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
async function imageExtraction({ storage, config }: StageContext): Promise<StoredExtraction> {
  // The engine that will read it (OCR_ENGINE), as the page's own origin will say.
  const engine = config.ocr.engine === 'native' ? { parser: 'tesseract', version: nativeTesseractVersion() } : { parser: 'tesseract.js', version: TESSERACT_VERSION };
  const origin = { ...engine, engine: 'ocr' as const };
  const document: ParsedDocument = parsedDocument({ origin, body: [], pages: [{ index: 0 }] });
  const extraction: Extraction = { ...document, images: [] };
  const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
  return { sha256: stored.sha256, document, summary: { parser: 'image', pages: 1 } };
}

async function extractLocally(sha256: string, mediaType: string, password: string | undefined, { storage, parsePool, config }: StageContext<'parsePool'>, rendition?: RenditionRef): Promise<StoredExtraction> {
  const { zip } = config.limits;
  const parsed = await inSpan(SPAN.parse, { attributes: { [ATTR.mediaType]: mediaType } }, async (span) => {
    const result = await storage.blobs.withLocalFile(sha256, (path) => parsePool.parse({ path, mediaType, ...(password === undefined ? {} : { password }) }, {
      maxPages: config.limits.maxPages,
      maxZipEntries: zip.maxEntries,
      maxZipUncompressedBytes: zip.maxUncompressedBytes,
      maxZipRatio: zip.maxRatio,
    }));
    span?.setAttribute(ATTR.pages, result.pages?.length ?? 0);
    return result;
  });
  // A converted document's origin is its converter (the package's `origin`); its pages and blocks
  // keep the origin of what read the PDF (pdfjs-dist text layer, or OCR).
  const origin = rendition ? { parser: rendition.parser, version: rendition.version, engine: parsed.origin.engine } : parsed.origin;
  const { images, stored } = await inSpan(SPAN.assetWrite, { attributes: { [ATTR.files]: parsed.images.length + 1 } }, async () => {
    const images = [];
    for (const image of parsed.images) {
      const { sha256: imageSha, size } = await storage.blobs.putBuffer(image.data);
      images.push({ name: image.name, mediaType: image.mediaType, sha256: imageSha, size, ...(image.page === undefined ? {} : { page: image.page }), ...(image.width === undefined || image.height === undefined ? {} : { width: image.width, height: image.height }) });
    }
    const extraction: Extraction = { ...parsed, origin, images };
    return { images, stored: await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction))) };
  });
  const summary = { parser: parsed.origin.parser, pages: parsed.pages?.length, tables: parsed.tables.length, images: images.length, chars: parsed.text.length };
  return { sha256: stored.sha256, document: parsed, summary };
}
