import { afterAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { buildPdf, fixturePath, streamObject } from '@readpack/testing';
import { tableGrid, type BBox, type Origin } from '@readpack/reading-package';
import {
  concatTransformationMatrix,
  degrees,
  drawObject,
  PDFDocument,
  popGraphicsState,
  pushGraphicsState,
  rgb,
  StandardFonts,
  type PDFFont,
  type PDFPage,
} from 'pdf-lib';
import { getDocument, VerbosityLevel, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import sharp from 'sharp';
import { fillRuledTable, readPageGraphics, textItemBoxes } from '../src/pdf/graphics.js';
import type { PageGraphics } from '../src/pdf/graphics-types.js';

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const ORIGIN: Origin = { parser: 'pdfjs-dist', version: 'test', engine: 'text-layer' };
const NO_CAP = { maxImageBytes: 50 * 1024 * 1024 };
const PAGE_HEIGHT = 792;

const opened: PDFDocumentProxy[] = [];
afterAll(async () => {
  await Promise.all(opened.map((doc) => doc.destroy()));
});

/** Opened as pdf.ts opens PDFs: the installed pdfjs's CMaps and standard fonts, no eval. */
async function openPdf(data: Uint8Array): Promise<PDFDocumentProxy> {
  const doc = await getDocument({
    data: new Uint8Array(data),
    cMapUrl: join(pdfjsRoot, 'cmaps') + sep,
    cMapPacked: true,
    standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + sep,
    isEvalSupported: false,
    verbosity: VerbosityLevel.ERRORS,
  }).promise;
  opened.push(doc);
  return doc;
}

async function firstPage(build: (doc: PDFDocument, page: PDFPage) => Promise<void> | void): Promise<PDFPageProxy> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, PAGE_HEIGHT]);
  await build(doc, page);
  return (await openPdf(await doc.save())).getPage(1);
}

/** Deterministic noise: compresses badly, so PNG sizes are predictable and caps bite. */
function noise(width: number, height: number, channels: number, seed: number): Buffer {
  const pixels = Buffer.alloc(width * height * channels);
  let state = seed;
  for (let i = 0; i < pixels.length; i += 1) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    pixels[i] = state >>> 24;
  }
  return pixels;
}

/** A smooth picture (JPEG-friendly, so decoders agree closely). */
function gradient(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      pixels[i] = Math.round((255 * x) / width);
      pixels[i + 1] = Math.round((255 * y) / height);
      pixels[i + 2] = 128;
    }
  }
  return pixels;
}

/** Decoded pixels with the channels the file stores (sharp would widen gray to RGB by itself). */
async function rawOf(encoded: Uint8Array): Promise<{ data: Buffer; channels: number; width: number; height: number }> {
  const { channels } = await sharp(encoded).metadata();
  const decoder = channels === 1 ? sharp(encoded).toColourspace('b-w') : sharp(encoded);
  const { data, info } = await decoder.raw().toBuffer({ resolveWithObject: true });
  return { data, channels: info.channels, width: info.width, height: info.height };
}

const expectBox = (actual: BBox, expected: BBox) => actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i] as number, 1));

describe('readPageGraphics: embedded images', () => {
  it('stores a PNG pixel for pixel and a JPEG as the pixels pdfjs decoded, with top-left boxes in points', async () => {
    const pngPixels = noise(64, 48, 3, 7);
    const png = await sharp(pngPixels, { raw: { width: 64, height: 48, channels: 3 } }).png().toBuffer();
    const jpegPixels = gradient(120, 80);
    const jpeg = await sharp(jpegPixels, { raw: { width: 120, height: 80, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
    const page = await firstPage(async (doc, p) => {
      p.drawImage(await doc.embedPng(png), { x: 100, y: 500, width: 128, height: 96 });
      p.drawImage(await doc.embedJpg(jpeg), { x: 300, y: 100, width: 240, height: 160 });
    });
    const graphics = await readPageGraphics(page, 0, NO_CAP);
    expect(graphics.tables).toEqual([]);
    expect(graphics.figures).toHaveLength(2);
    const [pngFigure, jpegFigure] = graphics.figures;
    if (!pngFigure || !jpegFigure) throw new Error('figures missing');

    expectBox(pngFigure.bbox, [100, PAGE_HEIGHT - 596, 228, PAGE_HEIGHT - 500]);
    expect(pngFigure.image).toMatchObject({ mediaType: 'image/png', page: 0, width: 64, height: 48 });
    const pngBack = await rawOf(pngFigure.image.data);
    expect(pngBack.channels).toBe(3);
    expect(pngBack.data.equals(pngPixels)).toBe(true);

    expectBox(jpegFigure.bbox, [300, PAGE_HEIGHT - 260, 540, PAGE_HEIGHT - 100]);
    expect(jpegFigure.image).toMatchObject({ mediaType: 'image/png', width: 120, height: 80 });
    const jpegBack = await rawOf(jpegFigure.image.data);
    // Exactly what pdfjs decoded (its decoded copy is still in the page's object store)…
    const decoded = [...page.objs].map(([, data]) => data as { width?: number; data?: Uint8Array }).find((d) => d.width === 120);
    expect(decoded?.data && jpegBack.data.equals(Buffer.from(decoded.data.buffer, decoded.data.byteOffset, 120 * 80 * 3))).toBe(true);
    // …and the same picture as an independent decoder (libjpeg-turbo in sharp) sees it.
    const reference = await rawOf(jpeg);
    let worst = 0;
    for (let i = 0; i < reference.data.length; i += 1) worst = Math.max(worst, Math.abs((reference.data[i] ?? 0) - (jpegBack.data[i] ?? 0)));
    expect(worst).toBeLessThanOrEqual(8);
  });

  it('stores an image drawn several times once (content-addressed), with one figure per drawing', async () => {
    const png = await sharp(noise(32, 32, 3, 3), { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer();
    const page = await firstPage(async (doc, p) => {
      const image = await doc.embedPng(png);
      // The same XObject painted by four `q … cm /Im Do Q` runs and one pdf-lib drawImage.
      const name = p.node.newXObject('Image', image.ref);
      for (const x of [50, 150, 250, 350]) p.pushOperators(pushGraphicsState(), concatTransformationMatrix(64, 0, 0, 64, x, 600), drawObject(name), popGraphicsState());
      p.drawImage(image, { x: 50, y: 300, width: 200, height: 100 });
    });
    const { figures } = await readPageGraphics(page, 3, NO_CAP);
    expect(figures.map((f) => f.bbox[0])).toEqual([50, 150, 250, 350, 50].map((x) => expect.closeTo(x, 1)));
    expect(new Set(figures.map((f) => f.image.sha256)).size).toBe(1);
    expect(figures[0]?.image.page).toBe(3);
    expectBox(figures[4]?.bbox as BBox, [50, PAGE_HEIGHT - 400, 250, PAGE_HEIGHT - 300]);
  });

  it('reads inline images and 1-bit images, follows form XObject matrices and leaves stencil masks out', async () => {
    // 20 × 20 inline RGB image without the bytes of `EI` (0x45 0x49), which ends inline data.
    const inlinePixels = Buffer.from(Array.from({ length: 20 * 20 * 3 }, (_, i) => [0x10, 0x80, 0xf0][i % 3] as number));
    // 32 × 16 DeviceGray 1 bit per pixel: each row 0xF0 0xF0 0xF0 0xF0 (four white, four black).
    const bits = Buffer.alloc(4 * 16, 0xf0);
    const content = Buffer.concat([
      Buffer.from('q 40 0 0 40 20 200 cm BI /W 20 /H 20 /CS /RGB /BPC 8 ID '),
      inlinePixels,
      Buffer.from(' EI Q\nq 50 0 0 50 100 200 cm /Stencil Do Q\nq 64 0 0 32 200 200 cm /Bits Do Q\n/Fm Do\n'),
    ]);
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 300] /Contents 4 0 R /Resources << /XObject << /Stencil 5 0 R /Bits 6 0 R /Fm 7 0 R >> >> >>',
      streamObject(content),
      streamObject(Buffer.alloc(4 * 32, 0xaa), ' /Type /XObject /Subtype /Image /Width 32 /Height 32 /ImageMask true'),
      streamObject(bits, ' /Type /XObject /Subtype /Image /Width 32 /Height 16 /ColorSpace /DeviceGray /BitsPerComponent 1'),
      streamObject('q 30 0 0 30 0 0 cm /Bits Do Q', ' /Type /XObject /Subtype /Form /BBox [0 0 30 30] /Matrix [2 0 0 2 10 10] /Resources << /XObject << /Bits 6 0 R >> >>'),
    ]);
    const page = await (await openPdf(pdf)).getPage(1);
    const { figures } = await readPageGraphics(page, 0, NO_CAP);
    expect(figures.map((f) => [f.image.width, f.image.height])).toEqual([
      [20, 20],
      [32, 16],
      [32, 16],
    ]);
    const [inline, direct, inForm] = figures;
    expectBox(inline?.bbox as BBox, [20, 300 - 240, 60, 300 - 200]);
    expect((await rawOf(inline?.image.data as Uint8Array)).data.equals(inlinePixels)).toBe(true);
    expectBox(direct?.bbox as BBox, [200, 300 - 232, 264, 300 - 200]);
    const gray = await rawOf(direct?.image.data as Uint8Array);
    expect(gray.channels).toBe(1);
    expect([...gray.data.subarray(0, 8)]).toEqual([255, 255, 255, 255, 0, 0, 0, 0]);
    // Form matrix [2 0 0 2 10 10] around `30 0 0 30 0 0 cm`: 60 × 60 pt from (10, 10).
    expectBox(inForm?.bbox as BBox, [10, 300 - 70, 70, 300 - 10]);
    expect(inForm?.image.sha256).toBe(direct?.image.sha256);
  });

  it('gives boxes in the rotated page’s top-left frame (the viewport pdfjs reports)', async () => {
    const png = await sharp(noise(40, 30, 3, 9), { raw: { width: 40, height: 30, channels: 3 } }).png().toBuffer();
    const page = await firstPage(async (doc, p) => {
      p.setRotation(degrees(90));
      p.drawImage(await doc.embedPng(png), { x: 100, y: 500, width: 128, height: 96 });
    });
    const viewport = page.getViewport({ scale: 1 });
    expect([viewport.width, viewport.height]).toEqual([792, 612]);
    const [a0, b0, a1, b1] = viewport.convertToViewportRectangle([100, 500, 228, 596]);
    const { figures } = await readPageGraphics(page, 0, NO_CAP);
    expectBox(figures[0]?.bbox as BBox, [Math.min(a0, a1), Math.min(b0, b1), Math.max(a0, a1), Math.max(b0, b1)]);
  });

  it('skips images over the size cap, tiny images, images drawn tiny or off the page, without failing', async () => {
    const big = await sharp(noise(200, 200, 3, 11), { raw: { width: 200, height: 200, channels: 3 } }).png().toBuffer();
    const tiny = await sharp(noise(8, 8, 3, 5), { raw: { width: 8, height: 8, channels: 3 } }).png().toBuffer();
    const page = await firstPage(async (doc, p) => {
      p.drawImage(await doc.embedPng(big), { x: 50, y: 400, width: 200, height: 200 });
      p.drawImage(await doc.embedPng(tiny), { x: 300, y: 400, width: 100, height: 100 });
      p.drawImage(await doc.embedPng(big), { x: 300, y: 100, width: 6, height: 6 });
      p.drawImage(await doc.embedPng(big), { x: 700, y: 100, width: 100, height: 100 }); // off the page
    });
    const uncapped = await readPageGraphics(page, 0, NO_CAP);
    expect(uncapped.figures).toHaveLength(1);
    const size = uncapped.figures[0]?.image.data.length ?? 0;
    expect(size).toBeGreaterThan(100_000);
    const capped = await readPageGraphics(page, 0, { maxImageBytes: size - 1 });
    expect(capped.figures).toEqual([]);
  });
});

/**
 * 3 × 3 grid, columns 100 pt wide from x = 72, rows 30 pt high from y = 700 down (PDF space):
 *   | Name (spans 2 columns) | Qty  |
 *   | Fruit (spans 2 rows)   | Apple| 3 |
 *   |                        | Pear | 5 |
 */
function drawSpannedTable(p: PDFPage, font: PDFFont): void {
  const line = (x0: number, y0: number, x1: number, y1: number) => p.drawLine({ start: { x: x0, y: y0 }, end: { x: x1, y: y1 }, thickness: 0.75, color: rgb(0, 0, 0) });
  const [left, c1, c2, right] = [72, 172, 272, 372];
  const [top, r1, r2, bottom] = [700, 670, 640, 610];
  line(left, top, right, top);
  line(left, r1, right, r1);
  line(c1, r2, right, r2); // not under "Fruit": it spans rows 1 and 2
  line(left, bottom, right, bottom);
  line(left, top, left, bottom);
  line(c1, r1, c1, bottom); // not inside "Name": it spans columns 0 and 1
  line(c2, top, c2, bottom);
  line(right, top, right, bottom);
  const text = (s: string, x: number, y: number) => p.drawText(s, { x, y, size: 10, font });
  text('Name', left + 4, top - 20);
  text('Qty', c2 + 4, top - 20);
  text('Fruit', left + 4, r1 - 20);
  text('Apple', c1 + 4, r1 - 20);
  text('3', c2 + 4, r1 - 20);
  text('Pear', c1 + 4, r2 - 20);
  text('5', c2 + 4, r2 - 20);
}

describe('readPageGraphics: ruled tables', () => {
  it('reads a ruled 3 × 3 grid with a column span and a row span, filled from the text layer', async () => {
    const page = await firstPage(async (doc, p) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      drawSpannedTable(p, font);
      p.drawText('Text outside the table', { x: 72, y: 500, size: 10, font });
    });
    const { tables, figures } = await readPageGraphics(page, 0, NO_CAP);
    expect(figures).toEqual([]);
    expect(tables).toHaveLength(1);
    const table = tables[0];
    if (!table) throw new Error('no table');
    expect({ rows: table.rows, columns: table.columns }).toEqual({ rows: 3, columns: 3 });
    expectBox(table.bbox, [72, PAGE_HEIGHT - 700, 372, PAGE_HEIGHT - 610]);
    expect(table.cells.map(({ row, col, rowSpan, colSpan }) => ({ row, col, rowSpan, colSpan }))).toEqual([
      { row: 0, col: 0, rowSpan: 1, colSpan: 2 },
      { row: 0, col: 2, rowSpan: 1, colSpan: 1 },
      { row: 1, col: 0, rowSpan: 2, colSpan: 1 },
      { row: 1, col: 1, rowSpan: 1, colSpan: 1 },
      { row: 1, col: 2, rowSpan: 1, colSpan: 1 },
      { row: 2, col: 1, rowSpan: 1, colSpan: 1 },
      { row: 2, col: 2, rowSpan: 1, colSpan: 1 },
    ]);
    expectBox(table.cells[2]?.bbox as BBox, [72, PAGE_HEIGHT - 670, 172, PAGE_HEIGHT - 610]);

    const texts = await textItemBoxes(page);
    const { block, used } = fillRuledTable(table, texts, ORIGIN, 0);
    expect(block).toMatchObject({ type: 'table', page: 0, rows: 3, columns: 3, headerRows: 0, origin: ORIGIN });
    expect(tableGrid(block)).toEqual([
      ['Name', '', 'Qty'],
      ['Fruit', 'Apple', '3'],
      ['', 'Pear', '5'],
    ]);
    const outside = texts.findIndex((t) => t.text === 'Text outside the table');
    expect(used.has(outside)).toBe(false);
    expect([...used].filter((i) => texts[i]?.text.trim() !== '')).toHaveLength(7);
    expectCoversGridOnce(block.rows, block.columns, block.cells);
  });

  it('joins the lines and words of a cell in reading order', async () => {
    const page = await firstPage(async (doc, p) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      for (const y of [700, 640, 580]) p.drawLine({ start: { x: 72, y }, end: { x: 372, y }, thickness: 1 });
      for (const x of [72, 222, 372]) p.drawLine({ start: { x, y: 700 }, end: { x, y: 580 }, thickness: 1 });
      // Drawn out of order, second line first, and one word as two pieces.
      p.drawText('second line', { x: 80, y: 660, size: 10, font });
      p.drawText('first', { x: 80, y: 685, size: 10, font });
      p.drawText('line', { x: 110, y: 685, size: 10, font });
      p.drawText('B', { x: 230, y: 685, size: 10, font });
    });
    const [table] = (await readPageGraphics(page, 0, NO_CAP)).tables;
    if (!table) throw new Error('no table');
    const { block } = fillRuledTable(table, await textItemBoxes(page), ORIGIN, 0);
    expect(tableGrid(block)).toEqual([
      ['first line\nsecond line', 'B'],
      ['', ''],
    ]);
  });

  it('marks a header row set off by a double rule', async () => {
    const page = await firstPage((_doc, p) => {
      for (const y of [700, 680, 678, 650, 620]) p.drawLine({ start: { x: 72, y }, end: { x: 372, y }, thickness: 0.5 });
      for (const x of [72, 222, 372]) p.drawLine({ start: { x, y: 700 }, end: { x, y: 620 }, thickness: 0.5 });
    });
    const [table] = (await readPageGraphics(page, 0, NO_CAP)).tables;
    expect(table).toMatchObject({ rows: 3, columns: 2, headerRows: 1 });
    const { block } = fillRuledTable(table as NonNullable<typeof table>, [], ORIGIN, 0);
    expect(block.cells.filter((c) => c.header).map((c) => c.col)).toEqual([0, 1]);
  });

  it('finds no table in a page frame with underlined text, nor in a lone box or a box with one divider', async () => {
    const page = await firstPage(async (doc, p) => {
      const font = await doc.embedFont(StandardFonts.Helvetica);
      p.drawRectangle({ x: 36, y: 36, width: 540, height: 720, borderWidth: 1, borderColor: rgb(0, 0, 0) });
      p.drawText('Underlined heading', { x: 72, y: 700, size: 12, font });
      p.drawLine({ start: { x: 72, y: 697 }, end: { x: 190, y: 697 }, thickness: 0.5 });
      p.drawText('More underlined text', { x: 72, y: 650, size: 10, font });
      p.drawLine({ start: { x: 72, y: 648 }, end: { x: 170, y: 648 }, thickness: 0.5 });
      // A boxed note with a title bar: two rows in one column, not a table.
      p.drawRectangle({ x: 72, y: 400, width: 200, height: 100, borderWidth: 1, borderColor: rgb(0, 0, 0) });
      p.drawLine({ start: { x: 72, y: 480 }, end: { x: 272, y: 480 }, thickness: 1 });
      // A filled (not thin) rectangle: a coloured panel, not rules.
      p.drawRectangle({ x: 300, y: 100, width: 200, height: 100, color: rgb(0.9, 0.9, 0.9) });
    });
    const graphics: PageGraphics = await readPageGraphics(page, 0, NO_CAP);
    expect(graphics).toEqual({ figures: [], tables: [] });
  });

  it('tells line art from tables: a triangulated grid, a plotted curve over a grid, an axis with ticks, a mesh', async () => {
    const page = await firstPage((_doc, p) => {
      const line = (x0: number, y0: number, x1: number, y1: number) => p.drawLine({ start: { x: x0, y: y0 }, end: { x: x1, y: y1 }, thickness: 0.5 });
      // 3 × 3 squares, each cut by a diagonal.
      for (const k of [0, 1, 2, 3]) {
        line(72, 700 - 40 * k, 192, 700 - 40 * k);
        line(72 + 40 * k, 700, 72 + 40 * k, 580);
      }
      for (const i of [0, 1, 2]) for (const j of [0, 1, 2]) line(72 + 40 * i, 700 - 40 * j, 112 + 40 * i, 660 - 40 * j);
      // A 4 × 4 plot grid with a curve through it.
      for (const k of [0, 1, 2, 3, 4]) {
        line(300, 700 - 30 * k, 540, 700 - 30 * k);
        line(300 + 60 * k, 700, 300 + 60 * k, 580);
      }
      p.drawSvgPath('M 0 0 C 80 -200 160 200 240 0', { x: 300, y: 640, borderWidth: 1, borderColor: rgb(1, 0, 0) });
      // Axes with tick marks crossing them.
      line(72, 400, 300, 400);
      line(186, 300, 186, 500);
      for (let x = 72; x <= 300; x += 19) line(x, 397, x, 403);
      for (let y = 300; y <= 500; y += 20) line(183, y, 189, y);
      // A fine mesh: rows and columns too small to hold text.
      for (let k = 0; k <= 10; k += 1) {
        line(350, 400 - 3 * k, 500, 400 - 3 * k);
        line(350 + 15 * k, 400, 350 + 15 * k, 370);
      }
    });
    expect((await readPageGraphics(page, 0, NO_CAP)).tables).toEqual([]);
  });

  it('keeps a table whose outer frame has rounded corners', async () => {
    const page = await firstPage((_doc, p) => {
      // Frame 72..372 × 610..700 (PDF space) with 6 pt rounded corners, and its inner rules.
      p.drawSvgPath('M 6 0 L 294 0 C 297 0 300 3 300 6 L 300 84 C 300 87 297 90 294 90 L 6 90 C 3 90 0 87 0 84 L 0 6 C 0 3 3 0 6 0 Z', {
        x: 72,
        y: 700,
        borderWidth: 1,
        borderColor: rgb(0, 0, 0),
      });
      for (const y of [670, 640]) p.drawLine({ start: { x: 72, y }, end: { x: 372, y }, thickness: 0.5 });
      p.drawLine({ start: { x: 222, y: 700 }, end: { x: 222, y: 610 }, thickness: 0.5 });
    });
    const { tables } = await readPageGraphics(page, 0, NO_CAP);
    expect(tables.map((t) => [t.rows, t.columns])).toEqual([[3, 2]]);
  });

  it('reads borders drawn as thin filled bars (as Excel exports them)', async () => {
    const page = await firstPage((_doc, p) => {
      const bar = (x: number, y: number, width: number, height: number) => p.drawRectangle({ x, y, width, height, color: rgb(0, 0, 0) });
      for (const y of [700, 680, 660]) bar(72, y - 0.4, 300, 0.8);
      for (const x of [72, 172, 272, 372]) bar(x - 0.4, 660, 0.8, 40);
    });
    const { tables } = await readPageGraphics(page, 0, NO_CAP);
    expect(tables.map((t) => [t.rows, t.columns, t.cells.length])).toEqual([[2, 3, 6]]);
  });
});

function expectCoversGridOnce(rows: number, columns: number, cells: { row: number; col: number; rowSpan: number; colSpan: number }[]): void {
  const seen = Array.from({ length: rows }, () => new Array<number>(columns).fill(0));
  for (const cell of cells) {
    for (let r = cell.row; r < cell.row + cell.rowSpan; r += 1) for (let c = cell.col; c < cell.col + cell.colSpan; c += 1) (seen[r] as number[])[c] = (seen[r]?.[c] ?? 0) + 1;
  }
  expect(seen.flat().every((n) => n === 1)).toBe(true);
}

describe('textItemBoxes', () => {
  it('boxes horizontal and vertical (CJK) runs where pdftotext -bbox puts them', async () => {
    const invoice = await (await openPdf(await readFile(fixturePath('REPAIR-2022-INV-001_multipage.pdf')))).getPage(1);
    const insured = (await textItemBoxes(invoice)).find((t) => t.text.startsWith('Insured'));
    // pdftotext: "Insured" xMin 77.184 yMin 308.93 yMax 319.01.
    expect(insured?.bbox[0]).toBeCloseTo(77.184, 1);
    expect(insured?.bbox[1]).toBeCloseTo(308.93, 1);
    expect(insured?.bbox[3]).toBeCloseTo(319.01, 1);
    const jo = await (await openPdf(await readFile(fixturePath('jo.pdf')))).getPage(1);
    const column = (await textItemBoxes(jo)).find((t) => t.text === 'わたくしといふ現象は');
    expectBox(column?.bbox as BBox, [665.727, 46.647, 675.313, 142.507]);
  });
});

describe('readPageGraphics on the corpus', () => {
  it('finds the one photo of pdflatex-image.pdf where pdfimages lists it (300 × 200, placed at 300 × 200 pt)', async () => {
    const doc = await openPdf(await readFile(fixturePath('pdflatex-image.pdf')));
    const page = await doc.getPage(1);
    const { figures, tables } = await readPageGraphics(page, 0, NO_CAP);
    expect(tables).toEqual([]);
    expect(figures).toHaveLength(1);
    expect(figures[0]?.image).toMatchObject({ width: 300, height: 200, mediaType: 'image/png' });
    // cm 300 0 0 200 147.638 412.576 on an 841.89 pt high page.
    expectBox(figures[0]?.bbox as BBox, [147.638, 841.89 - 612.576, 447.638, 841.89 - 412.576]);
  });

  it('finds the logo and the estimate-totals grid on the invoice pages, and nothing on the notes page', async () => {
    const doc = await openPdf(await readFile(fixturePath('REPAIR-2022-INV-001_multipage.pdf')));
    const found: PageGraphics[] = [];
    for (let n = 1; n <= doc.numPages; n += 1) found.push(await readPageGraphics(await doc.getPage(n), n - 1, NO_CAP));
    expect(found.map((g) => g.figures.length)).toEqual([1, 1, 0]);
    // pdfimages -list: the same 279 × 163 JPEG (object 14) on pages 1 and 2.
    expect(found[0]?.figures[0]?.image).toMatchObject({ width: 279, height: 163 });
    expect(found[0]?.figures[0]?.image.sha256).toBe(found[1]?.figures[0]?.image.sha256);
    expect(found[2]?.tables).toEqual([]);

    const page = await doc.getPage(1);
    const [totals] = found[0]?.tables ?? [];
    if (!totals) throw new Error('no table on the invoice page');
    const { block } = fillRuledTable(totals, await textItemBoxes(page), ORIGIN, 0);
    const grid = tableGrid(block);
    expect(grid.map((row) => row[0]?.split('\n')[0])).toEqual(['Parts', 'GRAND TOTAL']);
    expect(grid[1]?.[1]).toBe('5,738');
    expect(grid[0]?.[1]).toContain('10.20% 278.46');
  });
});
