import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { buildPdf, fixturePath, streamObject } from '@readpack/testing';
import { PdfPageRenderer, RenderError, installCjkFallback, pdfPageCount, pdfjsCanvasModule, renderPdfPage } from '@readpack/render';
import { darkFraction, onePagePdf } from './minimal-pdf.js';

const MEDRPT = fixturePath('MEDRPT-2024-PAT-3847_medical_report_scan.pdf');

async function renderError(promise: Promise<unknown>): Promise<RenderError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RenderError) return err;
    throw err;
  }
  throw new Error('expected a RenderError, but the call succeeded');
}

describe('renderPdfPage', () => {
  it('renders a scanned page at 300 dpi with whole-pixel sizes from the page size in points', async () => {
    const page = await renderPdfPage({ path: fixturePath('epson.pdf'), pageIndex: 0 });
    expect(page.dpi).toBe(300);
    expect(page.pageWidthPt).toBeCloseTo(595, 0);
    expect(page.width).toBe(Math.round((page.pageWidthPt * 300) / 72));
    expect(page.height).toBe(Math.round((page.pageHeightPt * 300) / 72));
    expect(page.gray).toHaveLength(page.width * page.height);
    // A printed text page: ink, but mostly paper.
    expect(darkFraction(page.gray)).toBeGreaterThan(0.02);
    expect(darkFraction(page.gray)).toBeLessThan(0.3);
  });

  it('renders every page of a multi-page scan through one open document', async () => {
    const renderer = await PdfPageRenderer.open({ path: MEDRPT });
    try {
      expect(renderer.pageCount).toBe(3);
      const last = await renderer.renderPage(2, { dpi: 150 });
      expect(last).toMatchObject({ pageIndex: 2, dpi: 150 });
      expect(last.width).toBe(Math.round((last.pageWidthPt * 150) / 72));
      expect(darkFraction(last.gray)).toBeGreaterThan(0.01);
      const outside = await renderError(renderer.renderPage(3));
      expect(outside).toMatchObject({ code: 'page_out_of_range', pageIndex: 3 });
    } finally {
      await renderer.close();
    }
  });

  it('scales pixels with the dpi and keeps the page size in points', async () => {
    const data = readFileSync(fixturePath('pdflatex-image.pdf'));
    const at72 = await renderPdfPage({ data, pageIndex: 0, dpi: 72 });
    const at144 = await renderPdfPage({ data, pageIndex: 0, dpi: 144 });
    expect(at72.width).toBe(Math.round(at72.pageWidthPt));
    expect(at144.width).toBe(Math.round(at144.pageWidthPt * 2));
    expect(at144.pageHeightPt).toBeCloseTo(at72.pageHeightPt, 6);
    expect(darkFraction(at144.gray)).toBeGreaterThan(0.02);
    // The caller's bytes are not handed to pdfjs (which would detach them).
    expect(data.length).toBeGreaterThan(0);
    expect(data.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('renders CJK text of a non-embedded font through the CMaps and an installed CJK font', async () => {
    const page = await renderPdfPage({ path: fixturePath('jo.pdf'), pageIndex: 0, dpi: 150 });
    // Without the CMaps pdfjs draws nothing at all on this page.
    expect(darkFraction(page.gray)).toBeGreaterThan(0.01);
    const fallback = installCjkFallback(pdfjsCanvasModule());
    expect(fallback.sans ?? 'no CJK font installed: apt-get install fonts-noto-cjk').toMatch(/CJK|Hei|Han|Fallback/);
  });

  it('draws real CJK glyphs, not the same empty box for every character, in the generic families pdfjs falls back to', () => {
    const canvas = pdfjsCanvasModule();
    installCjkFallback(canvas);
    const draw = (text: string) => {
      const c = canvas.createCanvas(64, 64);
      const ctx = c.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, 64, 64);
      ctx.fillStyle = '#000';
      ctx.font = '48px "NoSuchFont", monospace';
      ctx.fillText(text, 4, 52);
      return Buffer.from(c.data());
    };
    expect(draw('現').equals(draw('象'))).toBe(false);
  });

  it('reuses its canvas between pages of the same size without carrying anything over', async () => {
    // Two A4 documents at 150 dpi: B rendered on a fresh canvas, then A, then B again on A's canvas.
    const b = { path: fixturePath('pdflatex-image.pdf'), pageIndex: 0, dpi: 150 };
    const a = { path: fixturePath('GeoTopo-komprimiert.pdf'), pageIndex: 67, dpi: 150 };
    const first = await renderPdfPage(b);
    const other = await renderPdfPage(a);
    expect([other.width, other.height]).toEqual([first.width, first.height]);
    expect(other.gray.equals(first.gray)).toBe(false);
    const again = await renderPdfPage(b);
    expect(again.gray.equals(first.gray)).toBe(true);
  });

  it('lowers the dpi to stay within maxPixels, down to the floor, then refuses the page', async () => {
    const page = await renderPdfPage({ path: fixturePath('epson.pdf'), pageIndex: 0, maxPixels: 2_000_000 });
    expect(page.dpi).toBeLessThan(300);
    expect(page.dpi).toBeGreaterThanOrEqual(100);
    expect(page.width * page.height).toBeLessThanOrEqual(2_000_000);
    // The highest whole dpi that fits: one more would not.
    const next = Math.round((page.pageWidthPt * (page.dpi + 1)) / 72) * Math.round((page.pageHeightPt * (page.dpi + 1)) / 72);
    expect(next).toBeGreaterThan(2_000_000);

    const refused = await renderError(renderPdfPage({ path: fixturePath('epson.pdf'), pageIndex: 0, maxPixels: 500_000 }));
    expect(refused).toMatchObject({ code: 'page_too_large', pageIndex: 0 });
  });

  it('refuses files that are not PDFs, truncated or empty', async () => {
    await expect(renderPdfPage({ path: fixturePath('invalid.pdf'), pageIndex: 0 })).rejects.toMatchObject({ code: 'corrupt_document' });
    await expect(renderPdfPage({ path: fixturePath('pdflatex-4-pages.truncated.pdf'), pageIndex: 0 })).rejects.toMatchObject({
      code: 'corrupt_document',
    });
    await expect(renderPdfPage({ data: new Uint8Array(0), pageIndex: 0 })).rejects.toMatchObject({ code: 'corrupt_document' });
    await expect(pdfPageCount(fixturePath('invalid.pdf'))).rejects.toBeInstanceOf(RenderError);
  });

  it('opens an encrypted PDF only with its password', async () => {
    const path = fixturePath('libreoffice-writer-password.pdf');
    const missing = await renderError(renderPdfPage({ path, pageIndex: 0 }));
    expect(missing.code).toBe('encrypted_document');
    expect(missing.message).toMatch(/supply its password/);
    const wrong = await renderError(renderPdfPage({ path, pageIndex: 0, password: 'wrong' }));
    expect(wrong.code).toBe('encrypted_document');
    expect(wrong.message).toMatch(/incorrect/);
    const page = await renderPdfPage({ path, pageIndex: 0, password: 'openpassword', dpi: 100 });
    expect(darkFraction(page.gray)).toBeGreaterThan(0.01);
    expect(await pdfPageCount(path, 'openpassword')).toBe(1);
  });

  it('counts pages from a path or from bytes', async () => {
    expect(await pdfPageCount(MEDRPT)).toBe(3);
    expect(await pdfPageCount(readFileSync(fixturePath('epson.pdf')))).toBe(1);
  });
});

describe('pages with damaged content', () => {
  // A 200×100 pt page whose valid content fills a 180×80 pt black rectangle.
  const RECT = '0 0 0 rg 10 10 180 80 re f';
  const RECT_PIXELS = 180 * 80;

  it('control: the valid content stream draws the rectangle', async () => {
    const page = await renderPdfPage({ data: onePagePdf(RECT), pageIndex: 0, dpi: 72 });
    expect(darkFraction(page.gray) * page.gray.length).toBe(RECT_PIXELS);
  });

  it('skips unknown operators and keeps what the stream draws before them (as viewers do)', async () => {
    const page = await renderPdfPage({ data: onePagePdf(`${RECT} foo bar 1 2 baz ] >> }{`), pageIndex: 0, dpi: 72 });
    expect(darkFraction(page.gray) * page.gray.length).toBe(RECT_PIXELS);
  });

  it('renders a page whose Flate content stream cannot be inflated as blank, without an error', async () => {
    const broken = deflateSync(Buffer.from(`${RECT}\n`.repeat(20))).subarray(0, 3);
    const page = await renderPdfPage({ data: onePagePdf(Buffer.concat([Buffer.from('xx'), broken]), ' /Filter /FlateDecode'), pageIndex: 0, dpi: 72 });
    expect(page.width).toBe(200);
    expect(darkFraction(page.gray)).toBe(0);
  });

  it('fails with render_failed and the page index when the page object itself is broken', async () => {
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '42',
      streamObject(RECT),
    ]);
    const failed = await renderError(renderPdfPage({ data: pdf, pageIndex: 0, dpi: 72 }));
    expect(failed).toMatchObject({ code: 'render_failed', pageIndex: 0 });
    expect(failed.message).toMatch(/page 1/);
  });
});
