import { joinWords, OcrError, readPage, type OcrPage, type OcrReader } from '@readpack/ocr';
import { PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import type { BBox, FlowBlock, OcrLangSource, Origin } from '@readpack/reading-package';
import { ATTR, inSpan, SPAN } from '@readpack/tracing';
import { childValues } from '../child-results.js';
import { permanentOcrCode, PermanentFailure, TransientFailure } from '../failures.js';
import { imageLanguage, surer, withData } from '../image-language.js';
import type { RenderedPageRefs } from '../render-task.js';
import { defineStage } from '../stage.js';
import type { RenderChildValue } from './render.js';

/** What a page's OCR job hands the document's assemble job (a ChildFailed instead when it failed for good). */
export interface PageChildResult {
  ok: true;
  kind: 'page';
  page: number;
  resultSha256: string;
}

/** One OCR-read page as stored in the blob store. */
export interface StoredOcrPage {
  page: number;
  text: string;
  confidence: number;
  /** Line boxes in page units (`unit`): PDF points for PDF pages, source pixels for images. */
  lines: { text: string; confidence: number; bbox: [number, number, number, number] }[];
  unit: 'pt' | 'px';
  lang: string;
  /** Where `lang` came from (the request, the document's fonts or text, OSD, or the default). */
  langSource: OcrLangSource;
  /** Page size in `unit`. */
  width?: number;
  height?: number;
  /** The page as blocks in reading order (tesseract's paragraphs), boxes in `unit`. */
  blocks: FlowBlock[];
  engine: { parser: string; version: string };
  /** The consumer that read it (operators compare pids when OCR is scaled out). */
  readBy: string;
  rendered: RenderedPageRefs;
}

/**
 * ocr: reads one rendered page with the OCR engine (OCR_ENGINE: tesseract.js workers or native
 * tesseract; offline language data). The page's render job is its child: its return value says
 * where the pixels are; if it failed for good, the page fails with the render's code. Either way
 * the page counts towards the document's progress. The language is extract's choice for the
 * page when it had one, else decided here from the pixels (image-language.ts).
 */
export const ocrStage = defineStage({
  stage: 'ocr',
  phase: 'ocr',
  needs: ['ocr'],
  failureOwner: 'parent',
  waitsForChildren: true,
  // The native engine batches the pages waiting for it into one tesseract process (start-up paid
  // once): it can only when more pages than processes are in hand, so the consumer holds
  // NATIVE_PREFETCH pages per process. tesseract.js workers stay warm and gain nothing from it.
  workerOptions: (config) => (config.ocr.engine === 'native' ? { concurrency: config.stages.ocr.concurrency * NATIVE_PREFETCH } : {}),
  async handle(payload, ctx): Promise<PageChildResult> {
    const { ocr, storage, state, job, config } = ctx;
    const [render] = await childValues<RenderChildValue>(job);
    // Every render ends with a value (a typed failure included); none means BullMQ failed it past its own bound.
    if (!render) throw new TransientFailure('internal_error', "The page's render job ended without a result.");
    if (!render.ok) throw new PermanentFailure(render.code, render.message);
    const rendered = render.refs;
    if (!(await storage.blobs.has(rendered.pixels.sha256))) throw new TransientFailure('internal_error', 'The rendered page is missing from the blob store.');
    const pgm = await storage.blobs.readBuffer(rendered.pixels.sha256);
    const fallback = config.ocr.defaultLang === 'auto' ? 'eng' : config.ocr.defaultLang;
    const { page, lang, langSource, how } = await inSpan(SPAN.ocrPage, { attributes: { [ATTR.page]: payload.page } }, () =>
      typed(() => read(ocr, pgm, payload.lang, fallback), payload.lang?.code ?? payload.options.ocrLang, ctx.logger),
    );
    ctx.logger.info('ocr language', { page: payload.page, lang, langSource, how });
    const lines = page.lines.map((l) => ({ text: l.text, confidence: Math.round(l.confidence), bbox: toPageUnits(l.bbox, rendered) }));
    const origin: Origin = { ...ocr.origin, engine: 'ocr' };
    const stored: StoredOcrPage = {
      page: payload.page,
      text: page.text,
      confidence: Math.round(page.confidence * 10) / 10,
      lines,
      unit: rendered.unit,
      width: rendered.pageWidth,
      height: rendered.pageHeight,
      blocks: toBlocks(page, payload.page, origin, rendered),
      lang,
      langSource,
      engine: ocr.origin,
      readBy: PROCESS_IDENTITY,
      rendered,
    };
    const blob = await inSpan(SPAN.assetWrite, { attributes: { [ATTR.files]: 1 } }, () => storage.blobs.putBuffer(Buffer.from(JSON.stringify(stored))));
    await state.pageDone(payload, payload.page);
    return { ok: true, kind: 'page', page: payload.page, resultSha256: blob.sha256 };
  },
  async onGaveUp(payload, { state }) {
    await state.pageDone(payload, payload.page);
  },
});

/** Pages a consumer holds per native tesseract process (see workerOptions). */
export const NATIVE_PREFETCH = 4;

interface Reading {
  page: OcrPage;
  lang: string;
  langSource: OcrLangSource;
  /** How the language was found, for the log. */
  how: string;
}

async function read(ocr: OcrReader, pgm: Buffer, chosen: { code: string; source: OcrLangSource } | undefined, fallback: string): Promise<Reading> {
  if (chosen) return { page: await readPage(ocr, pgm, { lang: chosen.code }), lang: chosen.code, langSource: chosen.source, how: `chosen by extract (${chosen.source})` };
  const found = await imageLanguage(ocr, pgm, fallback);
  const page = await readPage(ocr, pgm, { lang: found.lang });
  if (found.lang !== 'chi_sim' && found.lang !== 'chi_tra') return { page, lang: found.lang, langSource: found.source, how: found.how };
  // Han script alone does not say Simplified or Traditional: both read it, the surer one counts.
  const other = found.lang === 'chi_sim' ? 'chi_tra' : 'chi_sim';
  const unavailable: string[] = [];
  const second = await withData(() => readPage(ocr, pgm, { lang: other }), unavailable);
  if (!second) return { page, lang: found.lang, langSource: found.source, how: `${found.how}; ${other} not installed` };
  const best = surer(page, second);
  const lang = best === page ? found.lang : other;
  return { page: best, lang, langSource: found.source, how: `${found.how}; ${lang} read surer than ${lang === found.lang ? other : found.lang}` };
}

/** Engine errors about the input or the language data will not change on retry: the page fails for good. */
async function typed<T>(work: () => Promise<T>, lang: string, logger: Logger): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OcrError) {
      const failure = ocrFailure(error, lang, logger);
      if (failure) throw failure;
    }
    throw error;
  }
}

/**
 * The OCR errors no retry can fix, as the tenant sees them. The engine's own message names the
 * directories it searched: that is for the operator's log, while the tenant is told what to do.
 */
export function ocrFailure(error: OcrError, lang: string, logger: Logger): PermanentFailure | undefined {
  const code = permanentOcrCode(error.code);
  const forTenant = TENANT_MESSAGES[error.code];
  if (!code || !forTenant) return undefined;
  if (error.code === 'language_data_missing' || error.code === 'language_data_invalid') {
    logger.warn('OCR language data is not usable on this server', { code: error.code, lang, detail: error.message });
  }
  return new PermanentFailure(code, forTenant(lang));
}

const TENANT_MESSAGES: Partial<Record<OcrError['code'], (lang: string) => string>> = {
  language_data_missing: (lang) => `OCR in "${lang}" is not installed on this server: choose another ocrLang, or ask the operator to install its language data.`,
  language_data_invalid: (lang) => `The OCR language data for "${lang}" on this server is damaged: choose another ocrLang, or ask the operator to reinstall it.`,
  invalid_language: (lang) => `"${lang}" is not an OCR language code: use codes such as eng or chi_sim, joined with +.`,
  invalid_image: () => 'The page image could not be read for OCR.',
};

function toBlocks(page: OcrPage, index: number, origin: Origin, rendered: RenderedPageRefs): FlowBlock[] {
  return page.paragraphs
    .filter((p) => p.text.trim() !== '')
    .map((p) => ({ type: 'paragraph' as const, page: index, text: joinWords(p.text.split('\n')).trim(), bbox: toPageUnits(p.bbox, rendered), origin }));
}

function toPageUnits(bbox: { x0: number; y0: number; x1: number; y1: number }, rendered: RenderedPageRefs): BBox {
  const k = rendered.pixelsPerUnit > 0 ? 1 / rendered.pixelsPerUnit : 1;
  const round = (v: number) => Math.round(v * k * 10) / 10;
  return [round(bbox.x0), round(bbox.y0), round(bbox.x1), round(bbox.y1)];
}
