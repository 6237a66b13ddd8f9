import { OcrError, TESSERACT_VERSION, type OcrPage } from '@readpack/ocr';
import { PROCESS_IDENTITY, type Logger } from '@readpack/logging';
import type { BBox, FlowBlock, OcrLangSource } from '@readpack/reading-package';
import { childValues } from '../child-results.js';
import { permanentOcrCode, PermanentFailure, TransientFailure } from '../failures.js';
import type { RenderedPageRefs } from '../render-task.js';
import { defineStage, type StageContext } from '../stage.js';
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
  /** The page as blocks in reading order, boxes in `unit`. */
  blocks: FlowBlock[];
  engine: { parser: string; version: string };
  /** The consumer that read it (operators compare pids when OCR is scaled out). */
  readBy: string;
  rendered: RenderedPageRefs;
}

/**
 * ocr: reads one rendered page with a warm tesseract.js worker (offline language data). The page's
 * render job is its child: its return value says where the pixels are; if it failed for good, the
 * page fails with the render's code. Either way the page counts towards the document's progress.
 */
export const ocrStage = defineStage({
  stage: 'ocr',
  phase: 'ocr',
  needs: ['ocr'],
  failureOwner: 'parent',
  async handle(payload, ctx): Promise<PageChildResult> {
    const { storage, state, job } = ctx;
    const [render] = await childValues<RenderChildValue>(job);
    // Every render ends with a value (a typed failure included); none means BullMQ failed it past its own bound.
    if (!render) throw new TransientFailure('internal_error', 'The page\'s render job ended without a result.');
    if (!render.ok) throw new PermanentFailure(render.code, render.message);
    const rendered = render.refs;
    if (!(await storage.blobs.has(rendered.pixels.sha256))) throw new TransientFailure('internal_error', 'The rendered page is missing from the blob store.');
    const page = await recognize(ctx, await storage.blobs.readBuffer(rendered.pixels.sha256), payload.options.ocrLang);
    const lines = page.lines.map((l) => ({ text: l.text, confidence: Math.round(l.confidence), bbox: toPageUnits(l.bbox, rendered) }));
    const origin = { ...ENGINE, engine: 'ocr' as const };
    const stored: StoredOcrPage = {
      page: payload.page,
      text: page.text,
      confidence: Math.round(page.confidence * 10) / 10,
      lines,
      unit: rendered.unit,
      width: rendered.pageWidth,
      height: rendered.pageHeight,
      blocks: page.text.trim() ? [{ type: 'paragraph', page: payload.page, text: page.text.trim(), origin, ...unionBox(lines) }] : [],
      lang: payload.options.ocrLang,
      langSource: 'request',
      engine: ENGINE,
      readBy: PROCESS_IDENTITY,
      rendered,
    };
    const blob = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(stored)));
    await state.pageDone(payload, payload.page);
    return { ok: true, kind: 'page', page: payload.page, resultSha256: blob.sha256 };
  },
  async onGaveUp(payload, { state }) {
    await state.pageDone(payload, payload.page);
  },
});

const ENGINE = { parser: 'tesseract.js', version: TESSERACT_VERSION };

async function recognize(ctx: StageContext<'ocr'>, pgm: Buffer, lang: string): Promise<OcrPage> {
  try {
    return await ctx.ocr.recognize(pgm, { lang });
  } catch (error) {
    if (error instanceof OcrError) {
      const failure = ocrFailure(error, lang, ctx.logger);
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

function unionBox(lines: { bbox: BBox }[]): { bbox?: BBox } {
  if (lines.length === 0) return {};
  const xs0 = lines.map((l) => l.bbox[0]);
  const ys0 = lines.map((l) => l.bbox[1]);
  const xs1 = lines.map((l) => l.bbox[2]);
  const ys1 = lines.map((l) => l.bbox[3]);
  return { bbox: [Math.min(...xs0), Math.min(...ys0), Math.max(...xs1), Math.max(...ys1)] };
}

function toPageUnits(bbox: { x0: number; y0: number; x1: number; y1: number }, rendered: RenderedPageRefs): [number, number, number, number] {
  const k = rendered.pixelsPerUnit > 0 ? 1 / rendered.pixelsPerUnit : 1;
  const round = (v: number) => Math.round(v * k * 10) / 10;
  return [round(bbox.x0), round(bbox.y0), round(bbox.x1), round(bbox.y1)];
}
