import { createHash } from 'node:crypto';
import type { BlobPointer } from '@readpack/queues';
import { countChars, type PdfSlice, type SizeChars, type SlicePage } from '@readpack/parsers';
import type { Storage } from '@readpack/package-store';
import { storeImages, type StoredImage } from './extraction.js';
import { jsonStream } from './json-chunks.js';
import { PermanentFailure } from './failures.js';
import { pagesNeedingOcr } from './ocr-routing.js';

export interface PageRange {
  from: number;
  to: number;
}

/**
 * The slices of a PDF of `pages` pages: `size` pages each in page order, the last one shorter. A
 * last slice of less than half a slice joins the one before it when every slice opens the whole
 * PDF (`joinTail`): a small tail would cost a whole PDF open and a job for little work. Slices of
 * a split PDF keep the parts' bounds (a part opens in proportion to its pages).
 */
export function slicePlan(pages: number, size: number, joinTail = true): PageRange[] {
  if (!Number.isInteger(pages) || pages < 1 || !Number.isInteger(size) || size < 1) throw new RangeError(`no slice plan for ${pages} pages in slices of ${size}`);
  const ranges: PageRange[] = [];
  for (let from = 0; from < pages; from += size) ranges.push({ from, to: Math.min(pages, from + size) });
  const last = ranges[ranges.length - 1]!;
  const before = ranges[ranges.length - 2];
  if (joinTail && before && last.to - last.from < size / 2) {
    ranges.pop();
    before.to = last.to;
  }
  return ranges;
}

/** What a slice job returns to the merge job: where its pages are, and the statistics the merge needs before reading them. */
export interface SliceDone {
  ok: true;
  from: number;
  to: number;
  blob: BlobPointer;
  sizes: SizeChars;
}

/** A slice as stored: its pages before the document-wide steps, its images already in the blob store. */
export interface StoredSlice {
  pages: SlicePage[];
  images: StoredImage[];
}

/** Stores a slice's images, then the slice itself (by pointer: a job's return value stays small). */
export async function storeSlice(storage: Storage, range: PageRange, slice: PdfSlice): Promise<SliceDone> {
  const stored: StoredSlice = { pages: slice.pages, images: await storeImages(storage.blobs, slice.images) };
  // Streamed page by page: the slice's JSON is never one string beside its pages.
  const blob = await storage.blobs.putStream(jsonStream(stored));
  return { ok: true, from: range.from, to: range.to, blob: { sha256: blob.sha256, size: blob.size }, sizes: slice.sizes };
}

/** Reads a blob another job wrote, checked against its pointer: a missing or different blob fails the document (`source_missing`). */
export async function readPointer(storage: Storage, pointer: BlobPointer): Promise<Buffer> {
  if (!(await storage.blobs.has(pointer.sha256))) throw new PermanentFailure('source_missing', 'An intermediate result of this job is no longer stored; upload the file again.');
  const data = await storage.blobs.readBuffer(pointer.sha256);
  if (data.length !== pointer.size || createHash('sha256').update(data).digest('hex') !== pointer.sha256) {
    throw new PermanentFailure('source_missing', 'An intermediate result of this job is no longer what was stored; upload the file again.');
  }
  return data;
}

/**
 * The slices the merge job waited for, in page order, checked to cover pages 0 to `pages` - 1
 * exactly once (a gap would silently drop pages).
 */
export function slicesInOrder(values: readonly SliceDone[], pages: number): SliceDone[] {
  const ordered = [...values].sort((a, b) => a.from - b.from);
  let next = 0;
  for (const slice of ordered) {
    if (slice.from !== next) throw new PermanentFailure('internal_error', `the slices of this PDF do not cover page ${next}`);
    next = slice.to;
  }
  if (next !== pages) throw new PermanentFailure('internal_error', `the slices of this PDF end at page ${next} of ${pages}`);
  return ordered;
}

/**
 * Runs of pages of a slice that keep their text layer, counted as done when the slice is read;
 * the others are counted when OCR has read them. A page's text here is all of its text,
 * running headers included, so a page the merge finds too short after all (its only text was
 * furniture) is counted early, never twice (pages are counted once each).
 */
export function textLayerRuns(pages: readonly SlicePage[], minChars: number): PageRange[] {
  const asParsed = pages.map((page) => {
    const text = page.fragments.map((f) => f.text).join('\n');
    return { index: page.index, text, charCount: countChars(text) };
  });
  const needOcr = new Set(pagesNeedingOcr(asParsed, minChars));
  const runs: PageRange[] = [];
  for (const page of pages) {
    if (needOcr.has(page.index)) continue;
    const last = runs[runs.length - 1];
    if (last && last.to === page.index) last.to += 1;
    else runs.push({ from: page.index, to: page.index + 1 });
  }
  return runs;
}
