import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergePdfSlices, parseDocument, parsePdfPages, pdfTextLayerOrigin, planPdfDocument, PDF_MEDIA_TYPE, type ParsedDocument, type SliceSource } from '@readpack/parsers';
import { outlinedPdf } from '@readpack/testing';
import { slicePlan } from '../src/pdf-slices.js';
import { withPdfParts, type SplitOutcome } from '../src/pdf-split.js';

const QPDF = { qpdf: 'qpdf', timeoutMs: 60_000 };
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-split-test-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The document read as the pipeline reads a split PDF: each slice from its own part file, then merged. */
async function readFromParts(path: string, size: number): Promise<{ parsed: ParsedDocument; partPages: number[] }> {
  const input = { path, mediaType: PDF_MEDIA_TYPE };
  const plan = await planPdfDocument(input, {}, size);
  if (plan.kind !== 'sliced') throw new Error(`a PDF of more than ${size} pages was not sliced`);
  return withPdfParts(path, plan.pages, size, QPDF, async (outcome) => {
    if (outcome.kind !== 'split') throw new Error(`not split: ${outcome.reason} ${outcome.detail}`);
    const ranges = slicePlan(plan.pages, size, false);
    expect(outcome.files).toHaveLength(ranges.length);
    const sources: SliceSource[] = [];
    const partPages: number[] = [];
    for (const [i, { from, to }] of ranges.entries()) {
      const part = { path: outcome.files[i]!, mediaType: PDF_MEDIA_TYPE };
      // The part holds that slice's pages alone.
      const partPlan = await planPdfDocument(part, {}, 0);
      partPages.push(partPlan.kind === 'sliced' ? partPlan.pages : -1);
      const slice = await parsePdfPages(part, {}, { from, to, firstPage: from });
      const stored = JSON.stringify(slice.pages);
      sources.push({ pageCount: slice.pages.length, sizes: slice.sizes, load: async () => JSON.parse(stored) as Awaited<ReturnType<SliceSource['load']>> });
    }
    return { parsed: await mergePdfSlices(sources, plan.outline, pdfTextLayerOrigin()), partPages };
  });
}

describe('a large PDF split into one file per slice (qpdf)', () => {
  it('gives the same document as read whole, each part holding its slice’s pages, a short last part kept apart', async () => {
    const generated = await outlinedPdf({ sections: 90 });
    const path = join(dir, 'outlined.pdf');
    await writeFile(path, generated.bytes);
    const whole = await parseDocument({ path, mediaType: PDF_MEDIA_TYPE });
    const pages = whole.pages!.length;
    // The last part must be shorter than half a slice, so that the plan without joining is what is read.
    const size = 25;
    expect(pages % size).toBeGreaterThan(0);
    expect(pages % size).toBeLessThan(size / 2);
    expect(whole.body.some((b) => b.type === 'heading' && b.level === 1)).toBe(true);
    expect(whole.furniture.some((f) => f.type === 'page_header')).toBe(true);

    const { parsed, partPages } = await readFromParts(path, size);
    expect(partPages).toEqual(slicePlan(pages, size, false).map((r) => r.to - r.from));
    expect(parsed).toEqual(whole);
  }, 120_000);

  it('says why it did not split: qpdf missing, a file qpdf cannot read, a page count qpdf disagrees with', async () => {
    const generated = await outlinedPdf({ sections: 30 });
    const path = join(dir, 'short.pdf');
    await writeFile(path, generated.bytes);
    const junk = join(dir, 'junk.pdf');
    await writeFile(junk, 'not a PDF at all');
    const reason = (o: SplitOutcome): string => (o.kind === 'unsplit' ? o.reason : 'split');
    await expect(withPdfParts(path, 10, 5, { qpdf: join(dir, 'no-such-qpdf'), timeoutMs: 60_000 }, async (o) => reason(o))).resolves.toBe('qpdf_missing');
    await expect(withPdfParts(junk, 10, 5, QPDF, async (o) => reason(o))).resolves.toBe('qpdf_failed');
    const plan = await planPdfDocument({ path, mediaType: PDF_MEDIA_TYPE }, {}, 0);
    const pages = plan.kind === 'sliced' ? plan.pages : 0;
    expect(pages).toBeGreaterThan(10);
    await expect(withPdfParts(path, pages + 10, 5, QPDF, async (o) => reason(o))).resolves.toBe('part_count_mismatch');
    await expect(withPdfParts(path, pages, 5, QPDF, async (o) => reason(o))).resolves.toBe('split');
  }, 60_000);

  it('deletes the parts once their user is done, also when it throws', async () => {
    const generated = await outlinedPdf({ sections: 30 });
    const path = join(dir, 'parts.pdf');
    await writeFile(path, generated.bytes);
    const plan = await planPdfDocument({ path, mediaType: PDF_MEDIA_TYPE }, {}, 0);
    const pages = plan.kind === 'sliced' ? plan.pages : 0;
    let seen: string[] = [];
    await expect(
      withPdfParts(path, pages, 5, QPDF, async (o) => {
        seen = o.kind === 'split' ? o.files : [];
        throw new Error('the user failed');
      }),
    ).rejects.toThrow('the user failed');
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.filter((f) => existsSync(f))).toEqual([]);
  }, 60_000);
});
