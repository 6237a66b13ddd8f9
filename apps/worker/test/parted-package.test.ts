import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type Storage } from '@readpack/package-store';
import { mergePdfSlicesInParts, pagesOf, parsePdfPages, pdfTextLayerOrigin, planPdfDocument, type SliceSource } from '@readpack/parsers';
import type { AssemblePayload } from '@readpack/queues';
import type { FlowBlock } from '@readpack/reading-package';
import { fixturePath } from '@readpack/testing';
import type { ChildFailed } from '../src/child-results.js';
import type { Extraction, ExtractionPart, PartedExtraction } from '../src/extraction.js';
import { fromExtraction, writePartedPackage } from '../src/stages/assemble.js';
import type { StoredOcrPage } from '../src/stages/ocr.js';

let dir: string;
let storage: Storage;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-parted-'));
  storage = await openStorage(dir);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const origin = pdfTextLayerOrigin();

/** A 117-page textbook (lists, tables, figures) read in slices of 10 pages and merged in parts of at least 7 pages, as the merge job stores them. */
async function partsOfTextbook(): Promise<ExtractionPart[]> {
  const path = fixturePath('GeoTopo-komprimiert.pdf');
  const input = { path, mediaType: 'application/pdf' };
  const plan = await planPdfDocument(input, {}, 10);
  if (plan.kind !== 'sliced') throw new Error('not sliced');
  const sources: SliceSource[] = [];
  for (let from = 0; from < plan.pages; from += 10) {
    const slice = await parsePdfPages(input, {}, { from, to: Math.min(plan.pages, from + 10) });
    sources.push({ pageCount: slice.pages.length, sizes: slice.sizes, load: async () => slice.pages });
  }
  const parts: ExtractionPart[] = [];
  await mergePdfSlicesInParts(sources, plan.outline, origin, (part) => {
    parts.push({ body: part.body, furniture: part.furniture, pages: pagesOf(part.pages, part.body, origin) });
  }, 7);
  return parts;
}

function ocrPage(page: number, text: string, confidence: number, image: { sha256: string; size: number }): StoredOcrPage {
  const ref = { sha256: image.sha256, size: image.size, mediaType: 'image/png' };
  const blocks: FlowBlock[] = [{ type: 'paragraph', text, page, bbox: [10, 10, 200, 30], origin: { parser: 'tesseract', version: '5', engine: 'ocr' } }];
  return {
    page,
    text,
    confidence,
    lines: [{ text, confidence, bbox: [10, 10, 200, 30] }],
    unit: 'pt',
    lang: 'eng',
    langSource: 'request',
    width: 595,
    height: 842,
    blocks,
    engine: { parser: 'tesseract', version: '5' },
    readBy: 'test:1',
    rendered: { page, width: 100, height: 100, dpi: 150, pageWidth: 595, pageHeight: 842, unit: 'pt', pixelsPerUnit: 2, pixels: ref, image: ref, preview: ref },
  } as StoredOcrPage;
}

describe('a parted extraction', () => {
  it('gives the package of its parts joined, byte for byte: OCR pages, a failed page, lists and tables across parts, a fallback', async () => {
    const parts = await partsOfTextbook();
    expect(parts.length).toBeGreaterThanOrEqual(5);
    // Every part is whole pages, and every top-level block lies on its part's pages.
    for (const part of parts) {
      const pages = new Set(part.pages.map((p) => p.index));
      for (const block of [...part.body, ...part.furniture]) expect(pages.has(block.page!)).toBe(true);
    }
    // A page with no text layer (its blocks gone), which OCR replaces; a page OCR read worse than its layer; a failed page.
    const emptied = parts[2]!.pages[1]!;
    parts[2]!.body = parts[2]!.body.filter((b) => b.page !== emptied.index);
    Object.assign(emptied, { text: '', charCount: 0 });
    const kept = parts[3]!.pages[0]!;
    const failed = parts[4]!.pages[2]!;
    const image = await storage.blobs.putBuffer(Buffer.from('a page image'));
    const ocrPages = [ocrPage(emptied.index, 'Read by OCR from the scan of this page.', 91, image), ocrPage(kept.index, 'l1 ~~ |', 20, image)];
    const pageFailures: ChildFailed[] = [{ ok: false, stage: 'ocr', code: 'render_failed', message: 'tesseract gave up', page: failed.index }];
    const fallback = { engine: 'local' as const, reason: { code: 'mineru_unavailable', message: 'MinerU did not answer' } };

    const pointers = [];
    for (const part of parts) pointers.push({ ...(await storage.blobs.putBuffer(Buffer.from(JSON.stringify(part)))), pages: part.pages.length });
    const parted: PartedExtraction = { origin, images: [], parts: pointers };
    const whole: Extraction = { origin, body: parts.flatMap((p) => p.body), furniture: parts.flatMap((p) => p.furniture), images: [], pages: parts.flatMap((p) => p.pages) };
    const source = { sha256: 'b'.repeat(64), filename: 'GeoTopo-komprimiert.pdf', mediaType: 'application/pdf', size: 1 };
    const payload = { jobId: 'job_partedpackage00000000', tenant: 'default', source, options: { engine: 'auto', ocrLang: 'eng' }, children: 3 } as AssemblePayload;

    const manifest = fromExtraction(payload, whole, ocrPages, pageFailures);
    manifest.fallback = fallback;
    expect(manifest.pages!.find((p) => p.index === emptied.index)?.ocr?.chosen).toBe(true);
    expect(manifest.pages!.find((p) => p.index === kept.index)?.ocr?.chosen).toBe(false);
    // What the comparison is about must be there: a list going on across a page break, tables in several parts.
    expect(manifest.body.some((b) => b.type === 'list' && b.items.some((item) => item.page !== b.page))).toBe(true);
    expect(parts.filter((p) => p.body.some((b) => b.type === 'table')).length).toBeGreaterThanOrEqual(2);
    const expected = await storage.packages.write(manifest);
    const expectedBytes = await readFile(storage.packages.pathOf(payload.jobId));
    await storage.packages.delete(payload.jobId);

    const written = await writePartedPackage(payload, parted, { ocrPages, pageFailures, fallback }, storage);
    const bytes = await readFile(storage.packages.pathOf(payload.jobId));
    expect(bytes.length).toBe(expectedBytes.length);
    expect(bytes.equals(expectedBytes)).toBe(true);
    expect(written).toEqual(expected);
    // The fields spilled while it was written are gone.
    expect((await readdir(storage.spoolDir)).filter((name) => name.startsWith(payload.jobId))).toEqual([]);
  }, 120_000);

  it('fails as the whole document would when it has no text and a page failed, and leaves no spilled field behind', async () => {
    const pageFailures: ChildFailed[] = [{ ok: false, stage: 'ocr', code: 'render_failed', message: 'tesseract gave up', page: 0 }];
    const part: ExtractionPart = { body: [], furniture: [], pages: [{ index: 0, text: '', charCount: 0, origin }] };
    const pointer = { ...(await storage.blobs.putBuffer(Buffer.from(JSON.stringify(part)))), pages: 1 };
    const payload = { jobId: 'job_partedempty0000000000', tenant: 'default', source: { sha256: 'c'.repeat(64), filename: 'x.pdf', mediaType: 'application/pdf', size: 1 }, options: { engine: 'local', ocrLang: 'eng' }, children: 1 } as AssemblePayload;
    await expect(writePartedPackage(payload, { origin, images: [], parts: [pointer] }, { ocrPages: [], pageFailures }, storage)).rejects.toMatchObject({ code: 'render_failed' });
    await expect(storage.packages.read(payload.jobId)).resolves.toBeNull();
    expect((await readdir(storage.spoolDir)).filter((name) => name.startsWith(payload.jobId))).toEqual([]);
  }, 60_000);
});
