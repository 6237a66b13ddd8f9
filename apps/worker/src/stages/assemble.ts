import { mineruBlocks } from '@readpack/mineru-client';
// The document helpers alone: the parsers' index would load every parser into the assemble consumer.
import { tablesOf } from '@readpack/parsers/document';
import type { ParsedPage } from '@readpack/parsers';
import {
  assetPath,
  blocksText,
  documentText,
  numberBlocks,
  renderMarkdown,
  SCHEMA_VERSION,
  walkBlocks,
  type AssetEntry,
  type FlowBlock,
  type FurnitureBlock,
  type LegacyLayoutBlock,
  type PackageManifest,
  type PackagePage,
  type PartOrigin,
} from '@readpack/reading-package';
import type { AssemblePayload } from '@readpack/queues';
import { ATTR, inSpan, SPAN } from '@readpack/tracing';
import type { Extraction } from '../extraction.js';
import { childValues, type ChildFailed, type ChildOutcome } from '../child-results.js';
import { PermanentFailure, TransientFailure } from '../failures.js';
import { defineStage, type StageContext } from '../stage.js';
import type { MineruChildResult, StoredMineruDocument } from './mineru.js';
import type { PageChildResult, StoredOcrPage } from './ocr.js';
import { choosePageReading } from '../page-choice.js';

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
export const assembleStage = defineStage({
  stage: 'assemble',
  phase: 'assemble',
  needs: [],
  failureOwner: 'job',
  waitsForChildren: true,
  async handle(payload, ctx) {
    // Fan-in: the children's results read and the package built from them.
    const manifest = await inSpan(SPAN.assemble, {}, async (span): Promise<PackageManifest> => {
      // A flow with no children (a text-layer document read locally) has no values to read.
      const children = payload.children === 0 ? { results: [], failures: [] } : await childOutcomes(ctx);
      const extraction = payload.extraction ? await readJson<Extraction>(ctx, payload.extraction.sha256) : undefined;
      const mineru = children.results.find((r): r is MineruChildResult => r.kind === 'mineru');
      const mineruFailure = children.failures.find((f) => f.stage === 'mineru');
      let manifest: PackageManifest;
      if (mineru) {
        manifest = fromMineru(payload, await readJson<StoredMineruDocument>(ctx, mineru.resultSha256), mineru.version);
      } else if (mineruFailure && payload.options.engine === 'mineru') {
        throw new PermanentFailure(mineruFailure.code, mineruFailure.message);
      } else if (extraction) {
        const ocrPages = await Promise.all(
          children.results.filter((r): r is PageChildResult => r.kind === 'page').map((r) => readJson<StoredOcrPage>(ctx, r.resultSha256)),
        );
        const pageFailures = children.failures.filter((f) => f.stage === 'ocr' && f.page !== undefined);
        manifest = fromExtraction(payload, extraction, ocrPages, pageFailures);
        if (mineruFailure) manifest.fallback = { engine: 'local', reason: { code: mineruFailure.code, message: mineruFailure.message } };
        // A document whose every unreadable page failed and that has no other text is a failure.
        if (manifest.text.trim() === '' && pageFailures[0]) throw new PermanentFailure(pageFailures[0].code, pageFailures[0].message);
      } else {
        throw new PermanentFailure('internal_error', 'Nothing to assemble: no extraction and no engine result.');
      }
      span?.setAttribute(ATTR.children, children.results.length + children.failures.length);
      return manifest;
    });
    await finishPackage(payload, manifest, ctx);
  },
});

/**
 * The document's end: its package written (atomically, under the job's own id), then the record
 * `done` under this job's lease. Shared by assemble and by an extract job that assembles a
 * document with nothing to wait for in place (assembleInPlace).
 */
async function finishPackage(payload: AssemblePayload, manifest: PackageManifest, { storage, state, logger }: StageContext): Promise<void> {
  const written = await inSpan(SPAN.packageWrite, {}, () => storage.packages.write(manifest));
  const result = await inSpan(SPAN.terminalWrite, { attributes: { [ATTR.outcome]: 'done' } }, () => state.complete(payload, written));
  logger.info('package written', { packageId: written.packageId, size: written.size, sha256: written.sha256, recorded: result.applied, fallback: manifest.fallback?.reason.code });
}

/**
 * A locally read document with no children (no OCR page, no MinerU call), assembled by the extract
 * job that read it when its process consumes assemble too (`ctx.assemblesHere`): the same package
 * as the assemble stage builds from the stored extraction (fromExtraction), without storing the
 * extraction, queueing a job to this same process and reading the extraction back.
 */
export async function assembleInPlace(payload: AssemblePayload, extraction: Extraction, ctx: StageContext): Promise<void> {
  const manifest = await inSpan(SPAN.assemble, { attributes: { [ATTR.children]: 0 } }, () => Promise.resolve(fromExtraction(payload, extraction)));
  await finishPackage(payload, manifest, ctx);
}

type ChildFailure = ChildFailed;
type ChildResult = PageChildResult | MineruChildResult;

/**
 * Every child's outcome, read from its return value: a result, or a typed failure (ChildFailed,
 * which the runner returns for a child that failed for good). A child BullMQ failed without a
 * value (past its own poison bound, which sits above ours) is not something assemble can place
 * in the document: the job is retried and, if that persists, dead-lettered as `internal_error`.
 */
async function childOutcomes({ job }: StageContext): Promise<{ results: ChildResult[]; failures: ChildFailure[] }> {
  const values = await childValues<ChildOutcome<PageChildResult> | ChildOutcome<MineruChildResult>>(job);
  const without = Object.keys(await job.getIgnoredChildrenFailures()).length;
  if (without > 0) throw new TransientFailure('internal_error', `${without} child job(s) of this document failed without a result.`);
  const results: ChildResult[] = [];
  const failures: ChildFailure[] = [];
  for (const value of values) {
    // null: a child that found the job already ended (or replayed) and did nothing.
    if (!value) continue;
    if (value.ok) results.push(value);
    else failures.push(value);
  }
  return { results, failures };
}

async function readJson<T>({ storage }: StageContext, sha256: string): Promise<T> {
  let json: string;
  try {
    // No variable holds the bytes while JSON.parse runs: a 10,000-page extraction is ~130 MB of them.
    json = (await storage.blobs.readBuffer(sha256)).toString('utf8');
  } catch (error) {
    // Asked only when the read fails (not a stat before every read): a blob that is gone is the user's to re-upload, anything else is retried.
    if (!(await storage.blobs.has(sha256))) throw new PermanentFailure('source_missing', 'An intermediate result of this job is no longer stored; upload the file again.');
    throw error;
  }
  return JSON.parse(json) as T;
}

function base(payload: AssemblePayload, origin: PartOrigin): Pick<PackageManifest, 'schemaVersion' | 'packageId' | 'jobId' | 'tenant' | 'source' | 'origin'> {
  return { schemaVersion: SCHEMA_VERSION, packageId: payload.jobId, jobId: payload.jobId, tenant: payload.tenant, source: { ...payload.source }, origin };
}

function uniqueAssets(assets: AssetEntry[]): AssetEntry[] {
  const seen = new Set<string>();
  return assets.filter((a) => !seen.has(a.sha256) && seen.add(a.sha256));
}

/**
 * The parts every package derives from its blocks, in one place: ids in reading order, `text`,
 * `markdown` (asset links root-relative) and the version-1 `tables`.
 */
function fromBlocks(packageId: string, body: FlowBlock[], furniture: FurnitureBlock[]): Pick<PackageManifest, 'body' | 'furniture' | 'text' | 'markdown' | 'tables'> {
  const doc = { body, furniture };
  numberBlocks(doc);
  return {
    text: documentText(doc),
    markdown: renderMarkdown(doc, { assetUrl: (sha256) => assetPath(packageId, sha256) }),
    body,
    furniture,
    tables: tablesOf(body),
  };
}

/** Assets a figure block refers to (they take the role `figure`; other embedded images keep theirs). */
function figureAssets(body: FlowBlock[]): Set<string> {
  const shas = new Set<string>();
  for (const block of walkBlocks(body)) if (block.type === 'figure' && block.asset) shas.add(block.asset);
  return shas;
}

/**
 * The package of a locally parsed document: its text-layer pages, with OCR's blocks in place of
 * a page's where OCR read it and the page-choice rule took OCR's reading (each part says which
 * engine produced it), and per-page errors for pages that could not be read — the rest of the
 * document stays valid.
 */
export function fromExtraction(payload: AssemblePayload, extraction: Extraction, ocrPages: StoredOcrPage[] = [], pageFailures: ChildFailure[] = []): PackageManifest {
  const byPage = new Map(ocrPages.map((p) => [p.page, p]));
  const failureByPage = new Map(pageFailures.map((f) => [f.page, f]));
  const pageAssets: AssetEntry[] = [];
  const replaced = new Set<number>();
  const ocrBlocks = new Map<number, FlowBlock[]>();
  const pages: PackagePage[] | undefined = extraction.pages?.map((p) => {
    const page: PackagePage = { index: p.index, text: p.text, origin: p.origin };
    if (p.width !== undefined && p.height !== undefined) Object.assign(page, { width: p.width, height: p.height, unit: 'pt' });
    const ocr = byPage.get(p.index);
    const failure = failureByPage.get(p.index);
    if (failure) page.error = { code: failure.code, message: failure.message };
    if (!ocr) return page;
    const { image, preview } = ocr.rendered;
    pageAssets.push({ sha256: image.sha256, mediaType: image.mediaType, size: image.size, role: 'page-image', page: p.index });
    pageAssets.push({ sha256: preview.sha256, mediaType: preview.mediaType, size: preview.size, role: 'page-preview', page: p.index });
    const choice = choosePageReading(p, ocr);
    const origin: PartOrigin = { parser: ocr.engine.parser, version: ocr.engine.version, engine: 'ocr' };
    page.image = image.sha256;
    page.preview = preview.sha256;
    page.boxUnit = ocr.unit;
    page.lines = ocr.lines;
    if (ocr.width !== undefined && ocr.height !== undefined) Object.assign(page, { width: ocr.width, height: ocr.height, unit: ocr.unit });
    page.ocr = { lang: ocr.lang, langSource: ocr.langSource, origin, confidence: ocr.confidence, chosen: choice.chosen, reason: choice.reason };
    if (choice.chosen) {
      replaced.add(p.index);
      const blocks = withLayerFigures(ocr.blocks, extraction.body, p);
      ocrBlocks.set(p.index, blocks);
      page.text = blocksText(blocks);
      page.origin = origin;
      page.confidence = ocr.confidence;
    } else {
      page.ocr.text = ocr.text;
    }
    return page;
  });
  const body: FlowBlock[] = pages
    ? pages.flatMap((p) => ocrBlocks.get(p.index) ?? extraction.body.filter((b) => b.page === p.index))
    : extraction.body;
  const furniture = extraction.furniture.filter((b) => b.page === undefined || !replaced.has(b.page));
  const figures = figureAssets(body);
  // The picture of a page OCR replaced is its scan, which the page image supersedes: not listed.
  const superseded = (i: Extraction['images'][number]) => i.page !== undefined && replaced.has(i.page) && !figures.has(i.sha256);
  const assets: AssetEntry[] = extraction.images.filter((i) => !superseded(i)).map((i) => {
    const asset: AssetEntry = { sha256: i.sha256, mediaType: i.mediaType, size: i.size, role: figures.has(i.sha256) ? 'figure' : 'embedded-image', name: i.name };
    if (i.page !== undefined) asset.page = i.page;
    if (i.width !== undefined && i.height !== undefined) Object.assign(asset, { width: i.width, height: i.height });
    return asset;
  });
  const manifest: PackageManifest = {
    ...base(payload, extraction.origin),
    ...fromBlocks(payload.jobId, body, furniture),
    assets: uniqueAssets([...assets, ...pageAssets]),
  };
  if (pages) manifest.pages = pages;
  return manifest;
}

/** A figure covering most of its page is the page's scan, not a picture on it. */
const SCAN_AREA = 0.6;

/**
 * OCR's blocks of a page with the text layer's pictures on it, placed by their top: OCR reads
 * text, so a page it replaced keeps its figures — except its scan (a picture covering most of the
 * page), which the page image replaces.
 */
function withLayerFigures(ocrBlocks: FlowBlock[], layerBody: FlowBlock[], page: ParsedPage): FlowBlock[] {
  const area = (page.width ?? 0) * (page.height ?? 0);
  const figures = layerBody.filter((b) => b.page === page.index && b.type === 'figure' && b.bbox && area > 0 && ((b.bbox[2] - b.bbox[0]) * (b.bbox[3] - b.bbox[1])) / area < SCAN_AREA);
  if (figures.length === 0) return ocrBlocks;
  const top = (b: FlowBlock) => b.bbox?.[1] ?? Number.POSITIVE_INFINITY;
  // A stable merge: OCR's reading order is kept, each figure goes before the first block below its top.
  const out: FlowBlock[] = [];
  const pending = [...figures].sort((a, b) => top(a) - top(b));
  for (const block of ocrBlocks) {
    while (pending.length > 0 && top(pending[0]!) <= top(block)) out.push(pending.shift()!);
    out.push(block);
  }
  return [...out, ...pending];
}

export function fromMineru(payload: AssemblePayload, doc: StoredMineruDocument, version: string): PackageManifest {
  const origin: PartOrigin = { parser: 'mineru', version, engine: 'mineru' };
  const imageByName = new Map(doc.images.map((i) => [i.name, i]));
  const blocks: LegacyLayoutBlock[] = doc.blocks.map((b) => {
    const block: LegacyLayoutBlock = { type: b.type, page: b.pageIndex, bbox: b.bbox, origin };
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
  const reading = mineruBlocks(doc.blocks, origin, (name) => imageByName.get(name)?.sha256);
  const figures = figureAssets(reading.body);
  return {
    ...base(payload, origin),
    ...fromBlocks(payload.jobId, reading.body, reading.furniture),
    pages: doc.pages.map((p) => ({ index: p.index, text: blocksText(reading.body.filter((b) => b.page === p.index)), origin })),
    blocks,
    assets: uniqueAssets(doc.images.map((i) => ({ sha256: i.sha256, mediaType: i.mediaType, size: i.size, role: figures.has(i.sha256) ? 'figure' : 'embedded-image', name: i.name }))),
  };
}
