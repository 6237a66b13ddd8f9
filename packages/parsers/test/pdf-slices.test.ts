import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { outlinedPdf, twoColumnPdf } from '@readpack/testing';
import { mergePdfSlices, mergePdfSlicesInParts, parseDocument, parsePdfPages, pdfTextLayerOrigin, planPdfDocument, type DocumentPart, type ParsedDocument, type PdfOutlineEntry, type SliceSource } from '../src/index.js';
import { PDF, scratchDir } from './helpers.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => scratch.cleanup());

/**
 * The document read in slices of `size` pages, each slice passed through JSON as it is between
 * the slice job and the merge job (stored in the blob store), then merged.
 */
async function slicedParse(path: string, size: number, inParts?: (sources: SliceSource[], outline: PdfOutlineEntry[]) => Promise<ParsedDocument>): Promise<ParsedDocument> {
  const input = { path, mediaType: PDF };
  const plan = await planPdfDocument(input, {}, size);
  if (plan.kind !== 'sliced') throw new Error(`a PDF of more than ${size} pages was not sliced`);
  const sources: SliceSource[] = [];
  for (let from = 0; from < plan.pages; from += size) {
    const slice = await parsePdfPages(input, {}, { from, to: from + size });
    expect(slice.images).toEqual([]);
    const stored = JSON.stringify(slice.pages);
    let loads = 0;
    sources.push({
      pageCount: slice.pages.length,
      sizes: JSON.parse(JSON.stringify(slice.sizes)) as SliceSource['sizes'],
      load: async () => {
        loads += 1;
        if (loads > 3) throw new Error('a slice was loaded more than three times');
        return JSON.parse(stored) as Awaited<ReturnType<SliceSource['load']>>;
      },
    });
  }
  const outline = JSON.parse(JSON.stringify(plan.outline)) as typeof plan.outline;
  return inParts ? inParts(sources, outline) : mergePdfSlices(sources, outline, pdfTextLayerOrigin());
}

describe('a PDF read in slices', () => {
  it('gives the same document as read whole: blocks, heading levels from the outline, running headers and page numbers, text', async () => {
    const generated = await outlinedPdf({ sections: 90 });
    const path = await scratch.file('outlined.pdf', generated.bytes);
    const whole = await parseDocument({ path, mediaType: PDF });
    expect(whole.pages!.length).toBeGreaterThanOrEqual(50);
    // What the comparison is about must be there to compare.
    expect(whole.furniture.filter((f) => f.type === 'page_header').length).toBe(whole.pages!.length);
    expect(whole.furniture.filter((f) => f.type === 'page_footer').length).toBe(whole.pages!.length);
    const levels = new Set(whole.body.flatMap((b) => (b.type === 'heading' ? [b.level] : [])));
    expect([...levels].sort()).toEqual([1, 2, 3]);

    const sliced = await slicedParse(path, 10);
    expect(sliced).toEqual(whole);
  }, 120_000);

  it('keeps statistical headings and two-column reading order when the document has no outline', async () => {
    const generated = await twoColumnPdf({ pages: 25 });
    const path = await scratch.file('two-column.pdf', generated.bytes);
    const whole = await parseDocument({ path, mediaType: PDF });
    expect(whole.body.some((b) => b.type === 'heading')).toBe(true);
    const sliced = await slicedParse(path, 10);
    expect(sliced).toEqual(whole);
  }, 120_000);

  it('hands the merged document out in parts of whole pages, ending where no list is open, that joined are the document', async () => {
    const generated = await outlinedPdf({ sections: 90 });
    const path = await scratch.file('outlined-parts.pdf', generated.bytes);
    const whole = await parseDocument({ path, mediaType: PDF });
    const parts: DocumentPart[] = [];
    await slicedParse(path, 10, async (sources, outline) => {
      await mergePdfSlicesInParts(sources, outline, pdfTextLayerOrigin(), (part) => {
        parts.push(part);
      }, 4);
      return whole;
    });
    expect(parts.length).toBeGreaterThanOrEqual(10);
    for (const [i, part] of parts.entries()) {
      if (i < parts.length - 1) expect(part.pages.length).toBeGreaterThanOrEqual(4);
      const pages = new Set(part.pages.map((p) => p.index));
      for (const block of [...part.body, ...part.furniture]) expect(pages.has(block.page!)).toBe(true);
    }
    expect(parts.flatMap((p) => p.pages.map((page) => page.index))).toEqual(whole.pages!.map((p) => p.index));
    expect(parts.flatMap((p) => p.body)).toEqual(whole.body);
    expect(parts.flatMap((p) => p.furniture)).toEqual(whole.furniture);
  }, 120_000);

  it('parses a PDF of at most the threshold pages whole, as before', async () => {
    const generated = await twoColumnPdf({ pages: 3 });
    const path = await scratch.file('short.pdf', generated.bytes);
    const plan = await planPdfDocument({ path, mediaType: PDF }, {}, 3);
    expect(plan.kind).toBe('whole');
    expect(plan.kind === 'whole' ? plan.document : undefined).toEqual(await parseDocument({ path, mediaType: PDF }));
  }, 60_000);

  it('refuses a slice past the end of the document, and counts pages against MAX_PAGES in the plan', async () => {
    const generated = await twoColumnPdf({ pages: 3 });
    const path = await scratch.file('three.pdf', generated.bytes);
    await expect(parsePdfPages({ path, mediaType: PDF }, {}, { from: 3, to: 6 })).rejects.toMatchObject({ code: 'corrupt_document' });
    await expect(planPdfDocument({ path, mediaType: PDF }, { maxPages: 2 }, 1)).rejects.toMatchObject({ code: 'too_many_pages' });
  }, 60_000);
});
