import { jobRefFields, type FlowChild } from '@readpack/queues';
import { nativeTesseractVersion, TESSERACT_VERSION } from '@readpack/ocr';
import { parsedDocument, type ParsedDocument } from '@readpack/parsers';
import { chooseEngine } from '../engine-choice.js';
import { pageLanguage } from '../ocr-language.js';
import { pagesNeedingOcr } from '../ocr-routing.js';
import { pdfPassword } from '../secrets.js';
import type { Extraction } from '../extraction.js';
import { PermanentFailure } from '../failures.js';
import type { StageContext, StageHandler } from '../stage.js';

/**
 * extract: parse the uploaded document in a parser thread (unless it goes to MinerU only), move
 * its embedded images into the blob store, store the extraction, choose the engine, and add the
 * document's assemble job with the children it waits for: a MinerU call, or one render → OCR
 * chain per page that needs OCR (ocr-routing.ts; an image is one such page). Every id in that
 * flow is derived from the job id, so a re-delivered extract (at-least-once) adds nothing new.
 */
export const extractStage: StageHandler<'extract'> = {
  stage: 'extract',
  phase: 'extract',
  needs: ['parsePool', 'secrets'],
  failureOwner: 'job',
  async handle(payload, ctx) {
    const { storage, producer, state, logger, config } = ctx;
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    const isImage = payload.source.mediaType.startsWith('image/');
    const extraction =
      payload.options.engine === 'mineru'
        ? undefined
        : isImage
          ? await imageExtraction(ctx)
          : await extractLocally(payload.source.sha256, payload.source.mediaType, pdfPassword(ctx.secrets, payload.secrets?.password, payload.jobId), ctx);
    const engine = chooseEngine(payload.options, extraction?.document, payload.source.mediaType, config);
    const ref = jobRefFields(payload);
    const children: FlowChild[] = [];
    let ocrPages: number[] = [];
    if (engine === 'mineru') {
      children.push({ name: 'mineru', payload: { ...ref, source: payload.source, options: payload.options } });
    } else if (extraction?.document.pages) {
      ocrPages = isImage ? [0] : pagesNeedingOcr(extraction.document.pages, config.ocr.minCharsPerPage);
      const kind = isImage ? 'image' : 'pdf-page';
      for (const page of ocrPages) {
        const lang = pageLanguage(payload.options, extraction.document.pages, page);
        const pagePayload = { ...ref, source: payload.source, options: payload.options, page };
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
};

/** An image has no text layer: one empty page, read by OCR. */
async function imageExtraction({ storage, config }: StageContext) {
  // The engine that will read it (OCR_ENGINE), as the page's own origin will say.
  const engine = config.ocr.engine === 'native' ? { parser: 'tesseract', version: nativeTesseractVersion() } : { parser: 'tesseract.js', version: TESSERACT_VERSION };
  const origin = { ...engine, engine: 'ocr' as const };
  const document: ParsedDocument = parsedDocument({ origin, body: [], pages: [{ index: 0 }] });
  const extraction: Extraction = { ...document, images: [] };
  const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
  return { sha256: stored.sha256, document, summary: { parser: 'image', pages: 1 } };
}

async function extractLocally(sha256: string, mediaType: string, password: string | undefined, { storage, parsePool, config }: StageContext) {
  if (!parsePool) throw new Error('extract needs the parse pool');
  const input = { path: storage.blobs.pathOf(sha256), mediaType, ...(password === undefined ? {} : { password }) };
  const { zip } = config.limits;
  const parsed = await parsePool.parse(input, {
    maxPages: config.limits.maxPages,
    maxZipEntries: zip.maxEntries,
    maxZipUncompressedBytes: zip.maxUncompressedBytes,
    maxZipRatio: zip.maxRatio,
  });
  const images = [];
  for (const image of parsed.images) {
    const { sha256: imageSha, size } = await storage.blobs.putBuffer(image.data);
    images.push({ name: image.name, mediaType: image.mediaType, sha256: imageSha, size, ...(image.page === undefined ? {} : { page: image.page }), ...(image.width === undefined || image.height === undefined ? {} : { width: image.width, height: image.height }) });
  }
  const extraction: Extraction = { ...parsed, images };
  const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
  const summary = { parser: parsed.origin.parser, pages: parsed.pages?.length, tables: parsed.tables.length, images: images.length, chars: parsed.text.length };
  return { sha256: stored.sha256, document: parsed, summary };
}
