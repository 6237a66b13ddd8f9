import { SCHEMA_VERSION, type AssetEntry, type PackageBlock, type PackageManifest, type PackagePage, type PartOrigin } from '@readpack/package-store';
import type { AssemblePayload } from '@readpack/queues';
import type { Extraction } from '../extraction.js';
import { PermanentFailure } from '../failures.js';
import type { StageContext, StageHandler } from '../stage.js';
import type { MineruChildResult, StoredMineruDocument } from './mineru.js';
import type { PageChildResult, StoredOcrPage } from './ocr.js';

/**
 * assemble: extraction + children's results → reading package → job `done` (or `failed`).
 *
 * It is the parent of the document's flow: it runs once every child completed or failed for
 * good, and decides what the document becomes. A MinerU child that failed fails a job that asked
 * for `engine=mineru` (never a silent switch) and makes an `auto` job fall back to local parsing,
 * said so in the package (`fallback`). Idempotent end to end: the manifest is a pure function of
 * the payload and the stored inputs (no clocks, no randomness), the package store writes it
 * atomically under the job's own id, and `complete` ignores a record already terminal.
 */
export const assembleStage: StageHandler<'assemble'> = {
  stage: 'assemble',
  phase: 'assemble',
  needs: [],
  failureOwner: 'job',
  async handle(payload, ctx) {
    const { storage, state, logger } = ctx;
    const children = await childOutcomes(ctx);
    const extraction = payload.extraction ? await readJson<Extraction>(ctx, payload.extraction.sha256) : undefined;
    const mineru = children.results.find((r): r is MineruChildResult => (r as MineruChildResult | undefined)?.kind === 'mineru');
    const mineruFailure = children.failures.find((f) => f.stage === 'mineru');

    let manifest: PackageManifest;
    if (mineru) {
      manifest = fromMineru(payload, await readJson<StoredMineruDocument>(ctx, mineru.resultSha256), mineru.version);
    } else if (mineruFailure && payload.options.engine === 'mineru') {
      throw new PermanentFailure(mineruFailure.code, mineruFailure.message);
    } else if (extraction) {
      const ocrPages = await Promise.all(
        children.results.filter((r): r is PageChildResult => (r as PageChildResult | undefined)?.kind === 'page').map((r) => readJson<StoredOcrPage>(ctx, r.resultSha256)),
      );
      const pageFailures = children.failures.filter((f) => f.stage === 'ocr' && f.page !== undefined);
      manifest = fromExtraction(payload, extraction, ocrPages, pageFailures);
      if (mineruFailure) manifest.fallback = { engine: 'local', reason: { code: mineruFailure.code, message: mineruFailure.message } };
      // A document whose every unreadable page failed and that has no other text is a failure.
      if (manifest.text.trim() === '' && pageFailures[0]) throw new PermanentFailure(pageFailures[0].code, pageFailures[0].message);
    } else {
      throw new PermanentFailure('internal_error', 'Nothing to assemble: no extraction and no engine result.');
    }
    const written = await storage.packages.write(manifest);
    const result = await state.complete(payload, written);
    logger.info('package written', { packageId: written.packageId, size: written.size, sha256: written.sha256, recorded: result.applied, fallback: manifest.fallback?.reason.code });
  },
};

interface ChildFailure {
  stage: string;
  /** For page children: the 0-based page. */
  page?: number;
  code: string;
  message: string;
}

/** Children's return values, and the failures BullMQ let the parent go on without. */
async function childOutcomes({ job }: StageContext): Promise<{ results: unknown[]; failures: ChildFailure[] }> {
  const values = await job.getChildrenValues();
  const ignored = await job.getIgnoredChildrenFailures();
  const failures = Object.entries(ignored).map(([key, reason]) => {
    // Keys look like `<prefix>:<queue>:<jobId>`; reasons like `<code>: <message>` for our own failures.
    const stage = key.split(':').at(-2) ?? 'unknown';
    const coded = /^([a-z_]+): (.*)$/s.exec(reason);
    const page = /-p(\d+)(?:-s\d+)?$/.exec(key)?.[1];
    const failure: ChildFailure = { stage, code: coded?.[1] ?? `${stage}_unavailable`, message: coded?.[2] ?? reason };
    if (page !== undefined) failure.page = Number(page);
    return failure;
  });
  return { results: Object.values(values), failures };
}

async function readJson<T>({ storage }: StageContext, sha256: string): Promise<T> {
  if (!(await storage.blobs.has(sha256))) throw new PermanentFailure('source_missing', 'An intermediate result of this job is no longer stored; upload the file again.');
  return JSON.parse((await storage.blobs.readBuffer(sha256)).toString('utf8')) as T;
}

function base(payload: AssemblePayload, origin: PartOrigin): Omit<PackageManifest, 'text' | 'tables' | 'assets'> {
  return { schemaVersion: SCHEMA_VERSION, packageId: payload.jobId, jobId: payload.jobId, tenant: payload.tenant, source: { ...payload.source }, origin };
}

function uniqueAssets(assets: AssetEntry[]): AssetEntry[] {
  const seen = new Set<string>();
  return assets.filter((a) => !seen.has(a.sha256) && seen.add(a.sha256));
}

/**
 * The package of a locally parsed document: its text-layer pages, with OCR results in place of
 * the pages that were read by OCR (each says which engine produced it), and per-page errors for
 * pages that could not be read — the rest of the document stays valid.
 */
export function fromExtraction(payload: AssemblePayload, extraction: Extraction, ocrPages: StoredOcrPage[] = [], pageFailures: ChildFailure[] = []): PackageManifest {
  const assets: AssetEntry[] = extraction.images.map((i) => ({ sha256: i.sha256, mediaType: i.mediaType, size: i.size, role: 'embedded-image', name: i.name }));
  const byPage = new Map(ocrPages.map((p) => [p.page, p]));
  const failureByPage = new Map(pageFailures.map((f) => [f.page, f]));
  const pages: PackagePage[] | undefined = extraction.pages?.map((p) => {
    const ocr = byPage.get(p.index);
    const failure = failureByPage.get(p.index);
    if (ocr) {
      const { image, preview } = ocr.rendered;
      assets.push({ sha256: image.sha256, mediaType: image.mediaType, size: image.size, role: 'page-image', page: p.index });
      assets.push({ sha256: preview.sha256, mediaType: preview.mediaType, size: preview.size, role: 'page-preview', page: p.index });
      return {
        index: p.index,
        text: ocr.text,
        origin: { parser: ocr.engine.parser, version: ocr.engine.version, engine: 'ocr' },
        confidence: ocr.confidence,
        image: image.sha256,
        preview: preview.sha256,
        boxUnit: ocr.unit,
        lines: ocr.lines,
      };
    }
    const page: PackagePage = { index: p.index, text: p.text, origin: p.origin };
    if (failure) page.error = { code: failure.code, message: failure.message };
    return page;
  });
  const manifest: PackageManifest = {
    ...base(payload, extraction.origin),
    text: pages ? pages.map((p) => p.text).join('\n\n') : extraction.text,
    tables: extraction.tables.map((t) => ({ name: t.name, rows: t.rows, origin: t.origin })),
    assets: uniqueAssets(assets),
  };
  if (pages) manifest.pages = pages;
  return manifest;
}

export function fromMineru(payload: AssemblePayload, doc: StoredMineruDocument, version: string): PackageManifest {
  const origin: PartOrigin = { parser: 'mineru', version, engine: 'mineru' };
  const imageByName = new Map(doc.images.map((i) => [i.name, i]));
  const blocks: PackageBlock[] = doc.blocks.map((b) => {
    const block: PackageBlock = { type: b.type, page: b.pageIndex, bbox: b.bbox, origin };
    if (b.bboxPt) block.bboxPt = b.bboxPt;
    if (b.text !== undefined) block.text = b.text;
    if (b.level !== undefined) block.level = b.level;
    if (b.html !== undefined) block.html = b.html;
    if (b.cells) block.cells = b.cells;
    const image = b.image ? imageByName.get(b.image) : undefined;
    if (image) block.asset = image.sha256;
    if (b.captions?.length) block.captions = b.captions;
    if (b.footnotes?.length) block.footnotes = b.footnotes;
    return block;
  });
  const tables = blocks
    .filter((b) => b.type === 'table' && b.cells)
    .map((b, i) => ({ name: `Table ${i + 1} (page ${b.page + 1})`, rows: b.cells!, origin }));
  return {
    ...base(payload, origin),
    text: doc.pages.map((p) => p.text).join('\n\n'),
    pages: doc.pages.map((p) => ({ index: p.index, text: p.text, origin })),
    tables,
    blocks,
    assets: uniqueAssets(doc.images.map((i) => ({ sha256: i.sha256, mediaType: i.mediaType, size: i.size, role: 'figure', name: i.name }))),
  };
}
