import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mineruBlocks } from '@readpack/mineru-client';
import { SpilledJson, type Storage, type StreamedManifest, type WrittenPackage } from '@readpack/package-store';
// The document helpers alone: the parsers' index would load every parser into the assemble consumer.
import { blocksByPage, tablesOf } from '@readpack/parsers/document';
import type { ParsedPage } from '@readpack/parsers';
import {
  assetPath,
  blocksText,
  documentText,
  numberBlocks,
  numberFrom,
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
import { isParted, type Extraction, type ExtractionPart, type PartedExtraction, type StoredExtraction } from '../extraction.js';
import { readPointer } from '../pdf-slices.js';
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
    // Fan-in: the children's results read and the package built from them (a parted extraction's written as it is built).
    const assembled = await inSpan(SPAN.assemble, {}, async (span): Promise<Assembled> => {
      // A flow with no children (a text-layer document read locally) has no values to read.
      const children = payload.children === 0 ? { results: [], failures: [] } : await childOutcomes(ctx);
      span?.setAttribute(ATTR.children, children.results.length + children.failures.length);
      const extraction = payload.extraction ? await readJson<StoredExtraction>(ctx, payload.extraction.sha256) : undefined;
      const mineru = children.results.find((r): r is MineruChildResult => r.kind === 'mineru');
      const mineruFailure = children.failures.find((f) => f.stage === 'mineru');
      if (mineru) return { kind: 'manifest', manifest: fromMineru(payload, await readJson<StoredMineruDocument>(ctx, mineru.resultSha256), mineru.version) };
      if (mineruFailure && payload.options.engine === 'mineru') throw new PermanentFailure(mineruFailure.code, mineruFailure.message);
      if (!extraction) throw new PermanentFailure('internal_error', 'Nothing to assemble: no extraction and no engine result.');
      const ocrPages = await Promise.all(
        children.results.filter((r): r is PageChildResult => r.kind === 'page').map((r) => readJson<StoredOcrPage>(ctx, r.resultSha256)),
      );
      const pageFailures = children.failures.filter((f) => f.stage === 'ocr' && f.page !== undefined);
      const fallback = mineruFailure && { engine: 'local' as const, reason: { code: mineruFailure.code, message: mineruFailure.message } };
      if (isParted(extraction)) {
        const written = await writePartedPackage(payload, extraction, { ocrPages, pageFailures, ...(fallback ? { fallback } : {}) }, ctx.storage);
        return { kind: 'written', written, fallback };
      }
      const manifest = fromExtraction(payload, extraction, ocrPages, pageFailures);
      if (fallback) manifest.fallback = fallback;
      // A document whose every unreadable page failed and that has no other text is a failure.
      if (manifest.text.trim() === '' && pageFailures[0]) throw new PermanentFailure(pageFailures[0].code, pageFailures[0].message);
      return { kind: 'manifest', manifest };
    });
    if (assembled.kind === 'written') await recordDone(payload, assembled.written, assembled, ctx);
    else await finishPackage(payload, assembled.manifest, ctx);
  },
});

/** A package to write, or one written already (a parted extraction's, written as it was built). */
type Assembled = { kind: 'manifest'; manifest: PackageManifest } | { kind: 'written'; written: WrittenPackage; fallback: PackageManifest['fallback'] };

/**
 * The document's end: its package written (atomically, under the job's own id), then the record
 * `done` under this job's lease. Shared by assemble and by an extract job that assembles a
 * document with nothing to wait for in place (assembleInPlace).
 */
async function finishPackage(payload: AssemblePayload, manifest: PackageManifest | StreamedManifest, ctx: StageContext): Promise<void> {
  await recordDone(payload, await writePackage(manifest, ctx.storage), manifest, ctx);
}

function writePackage(manifest: PackageManifest | StreamedManifest, storage: Storage): Promise<WrittenPackage> {
  return inSpan(SPAN.packageWrite, {}, () => storage.packages.write(manifest));
}

async function recordDone(payload: AssemblePayload, written: WrittenPackage, manifest: Pick<PackageManifest, 'fallback'>, { state, logger }: StageContext): Promise<void> {
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
  const readings = new PageReadings(ocrPages, pageFailures);
  const read = extraction.pages && readings.pages(extraction.pages, extraction.body);
  const body: FlowBlock[] = read ? read.body : extraction.body;
  const furniture = readings.furnitureKept(extraction.furniture);
  const manifest: PackageManifest = {
    ...base(payload, extraction.origin),
    ...fromBlocks(payload.jobId, body, furniture),
    assets: readings.assets(extraction.images, figureAssets(body)),
  };
  if (read) manifest.pages = read.pages;
  return manifest;
}

/**
 * The package of a parted extraction (a large PDF), written as it is made: each part read in
 * turn, its pages read as fromExtraction reads them (PageReadings), its blocks numbered on from
 * the part before and added to the package's text, Markdown, blocks, tables and pages, which
 * are spilled to files of their own (package-store's SpilledJson) and copied into the package
 * in its field order. The bytes are those of fromExtraction's package of the parts joined (tested).
 */
export async function writePartedPackage(
  payload: AssemblePayload,
  extraction: PartedExtraction,
  children: { ocrPages: StoredOcrPage[]; pageFailures: ChildFailure[]; fallback?: PackageManifest['fallback'] },
  storage: Storage,
): Promise<WrittenPackage> {
  const spilled: SpilledJson[] = [];
  const spill = async (field: string, kind: 'array' | 'string'): Promise<SpilledJson> => {
    const file = await SpilledJson.open(join(storage.spoolDir, `${payload.jobId}.${field}.${process.pid}.${randomBytes(6).toString('hex')}.json`), kind);
    spilled.push(file);
    return file;
  };
  try {
    const [text, markdown, body, tables, pages] = [await spill('text', 'string'), await spill('markdown', 'string'), await spill('body', 'array'), await spill('tables', 'array'), await spill('pages', 'array')];
    const readings = new PageReadings(children.ocrPages, children.pageFailures);
    const furniture: FurnitureBlock[] = [];
    const figures = new Set<string>();
    const assetUrl = (sha256: string) => assetPath(payload.jobId, sha256);
    let blocks = 0;
    let tableCount = 0;
    for (const pointer of extraction.parts) {
      const part = JSON.parse((await readPointer(storage, pointer)).toString('utf8')) as ExtractionPart;
      const read = readings.pages(part.pages, part.body);
      blocks = numberFrom(read.body, 'b', blocks);
      furniture.push(...readings.furnitureKept(part.furniture));
      // The parts' texts joined as blocksText joins blocks; a part of no text adds nothing.
      const partText = blocksText(read.body);
      if (partText !== '') await text.push(`${text.empty ? '' : '\n\n'}${partText}`);
      const partMarkdown = renderMarkdown({ body: read.body, furniture: [] }, { assetUrl });
      if (partMarkdown !== '') await markdown.push(`${markdown.empty ? '' : '\n\n'}${partMarkdown.slice(0, -1)}`);
      for (const block of read.body) await body.push(block);
      const partTables = tablesOf(read.body, tableCount);
      for (const table of partTables) await tables.push(table);
      tableCount += partTables.length;
      for (const page of read.pages) await pages.push(page);
      for (const sha of figureAssets(read.body)) figures.add(sha);
    }
    numberFrom(furniture, 'f', 0);
    // Footnotes go after the main flow, in text as in Markdown (documentText, renderMarkdown).
    const notes = documentText({ body: [], furniture });
    if (notes !== '') await text.push(`${text.empty ? '' : '\n\n'}${notes}`);
    const notesMarkdown = renderMarkdown({ body: [], furniture }, { assetUrl });
    if (notesMarkdown !== '') await markdown.push(`${markdown.empty ? '' : '\n\n'}${notesMarkdown.slice(0, -1)}`);
    if (!markdown.empty) await markdown.push('\n');
    // A document whose every unreadable page failed and that has no other text is a failure.
    const firstFailure = children.pageFailures[0];
    if (text.empty && firstFailure) throw new PermanentFailure(firstFailure.code, firstFailure.message);
    const manifest: StreamedManifest = {
      ...base(payload, extraction.origin),
      text,
      markdown,
      body,
      furniture,
      tables,
      assets: readings.assets(extraction.images, figures),
      pages,
    };
    if (children.fallback) manifest.fallback = children.fallback;
    return await writePackage(manifest, storage);
  } finally {
    for (const file of spilled) await file.remove();
  }
}

/**
 * How a locally parsed document's pages are read, given the OCR results and failures of its
 * pages: for each page, its text layer or OCR's reading (choosePageReading), its page image and
 * preview as assets, its error. Used page by page, a part of the document at a time (a parted
 * extraction) or all at once (fromExtraction); which pages OCR replaced carries across parts.
 */
class PageReadings {
  private readonly byPage: Map<number, StoredOcrPage>;
  private readonly failureByPage: Map<number | undefined, ChildFailure>;
  private readonly replaced = new Set<number>();
  private readonly pageAssets: AssetEntry[] = [];

  constructor(ocrPages: StoredOcrPage[], pageFailures: ChildFailure[]) {
    this.byPage = new Map(ocrPages.map((p) => [p.page, p]));
    this.failureByPage = new Map(pageFailures.map((f) => [f.page, f]));
  }

  /** The pages as the package has them, and the blocks of those pages in page order (OCR's where it replaced the text layer). */
  pages(pages: readonly ParsedPage[], layerBody: FlowBlock[]): { pages: PackagePage[]; body: FlowBlock[] } {
    const layerByPage = blocksByPage(layerBody);
    const ocrBlocks = new Map<number, FlowBlock[]>();
    const read = pages.map((p) => {
      const page: PackagePage = { index: p.index, text: p.text, origin: p.origin };
      if (p.width !== undefined && p.height !== undefined) Object.assign(page, { width: p.width, height: p.height, unit: 'pt' });
      const ocr = this.byPage.get(p.index);
      const failure = this.failureByPage.get(p.index);
      if (failure) page.error = { code: failure.code, message: failure.message };
      if (!ocr) return page;
      const { image, preview } = ocr.rendered;
      this.pageAssets.push({ sha256: image.sha256, mediaType: image.mediaType, size: image.size, role: 'page-image', page: p.index });
      this.pageAssets.push({ sha256: preview.sha256, mediaType: preview.mediaType, size: preview.size, role: 'page-preview', page: p.index });
      const choice = choosePageReading(p, ocr);
      const origin: PartOrigin = { parser: ocr.engine.parser, version: ocr.engine.version, engine: 'ocr' };
      page.image = image.sha256;
      page.preview = preview.sha256;
      page.boxUnit = ocr.unit;
      page.lines = ocr.lines;
      if (ocr.width !== undefined && ocr.height !== undefined) Object.assign(page, { width: ocr.width, height: ocr.height, unit: ocr.unit });
      page.ocr = { lang: ocr.lang, langSource: ocr.langSource, origin, confidence: ocr.confidence, chosen: choice.chosen, reason: choice.reason };
      if (choice.chosen) {
        this.replaced.add(p.index);
        const blocks = withLayerFigures(ocr.blocks, layerByPage.get(p.index) ?? [], p);
        ocrBlocks.set(p.index, blocks);
        page.text = blocksText(blocks);
        page.origin = origin;
        page.confidence = ocr.confidence;
      } else {
        page.ocr.text = ocr.text;
      }
      return page;
    });
    return { pages: read, body: read.flatMap((p) => ocrBlocks.get(p.index) ?? layerByPage.get(p.index) ?? []) };
  }

  /** Running headers and footers of the pages OCR did not replace (read after those pages). */
  furnitureKept(furniture: readonly FurnitureBlock[]): FurnitureBlock[] {
    return furniture.filter((b) => b.page === undefined || !this.replaced.has(b.page));
  }

  /** The package's assets: embedded images (`figures` take the role `figure`), then the page images of the pages read so far. */
  assets(images: Extraction['images'], figures: ReadonlySet<string>): AssetEntry[] {
    // The picture of a page OCR replaced is its scan, which the page image supersedes: not listed.
    const superseded = (i: Extraction['images'][number]) => i.page !== undefined && this.replaced.has(i.page) && !figures.has(i.sha256);
    const assets: AssetEntry[] = images.filter((i) => !superseded(i)).map((i) => {
      const asset: AssetEntry = { sha256: i.sha256, mediaType: i.mediaType, size: i.size, role: figures.has(i.sha256) ? 'figure' : 'embedded-image', name: i.name };
      if (i.page !== undefined) asset.page = i.page;
      if (i.width !== undefined && i.height !== undefined) Object.assign(asset, { width: i.width, height: i.height });
      return asset;
    });
    return uniqueAssets([...assets, ...this.pageAssets]);
  }
}

/** A figure covering most of its page is the page's scan, not a picture on it. */
const SCAN_AREA = 0.6;

/**
 * OCR's blocks of a page with the text layer's pictures on it, placed by their top: OCR reads
 * text, so a page it replaced keeps its figures — except its scan (a picture covering most of the
 * page), which the page image replaces.
 */
function withLayerFigures(ocrBlocks: FlowBlock[], layerBlocks: readonly FlowBlock[], page: ParsedPage): FlowBlock[] {
  const area = (page.width ?? 0) * (page.height ?? 0);
  const figures = layerBlocks.filter((b) => b.type === 'figure' && b.bbox && area > 0 && ((b.bbox[2] - b.bbox[0]) * (b.bbox[3] - b.bbox[1])) / area < SCAN_AREA);
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
