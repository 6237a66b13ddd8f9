import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { walkBlocks, type FigureBlock, type FlowBlock, type PackageManifest, type TableBlock } from '@readpack/reading-package';
import { assertValidPackage, fixturePath } from '@readpack/testing';
import { zipEntries } from '../../packages/parsers/test/zip-entries.js';
import { startPipeline, type Pipeline } from '../harness.js';
import { TenantClient } from '../security/support/client.js';

/**
 * What the reading package issue asks to be shown end to end, through the real API and
 * consumers: figures whose assets are the embedded images and are served under the tenant rules
 * of /api/assets; tables with their spans from DOCX, XLSX and a ruled PDF.
 */
const ALICE = 'alice-key-1c5e7a9b3d0f2468';
const BOB = 'bob-key-8d6f4b2a0c9e7531ab';

type Answer = Omit<PackageManifest, 'assets'> & { assets: (PackageManifest['assets'][number] & { url: string })[] };

let pipeline: Pipeline;
let alice: TenantClient;
let bob: TenantClient;

beforeAll(async () => {
  pipeline = await startPipeline({ API_KEYS: `${ALICE}:alice,${BOB}:bob` });
  alice = new TenantClient(pipeline.api.url, ALICE);
  bob = new TenantClient(pipeline.api.url, BOB);
}, 60_000);
afterAll(async () => pipeline?.stop());

async function packageOf(name: string, data: Uint8Array): Promise<Answer> {
  const jobId = await alice.submit({ name, data });
  expect(await alice.terminal(jobId)).toMatchObject({ status: 'done' });
  const manifest = (await (await alice.get(`/api/files/job/${jobId}/package`)).json()) as Answer;
  assertValidPackage(manifest);
  return manifest;
}

const blocksOf = <T extends FlowBlock['type']>(m: Pick<PackageManifest, 'body'>, type: T) => [...walkBlocks(m.body)].filter((b) => b.type === type) as Extract<FlowBlock, { type: T }>[];

async function assetBytes(m: Answer, sha256: string, client: TenantClient = alice): Promise<Response> {
  const asset = m.assets.find((a) => a.sha256 === sha256);
  expect(asset).toBeDefined();
  return client.get(new URL(asset!.url).pathname);
}

/** A one-page PDF with a PNG and a ruled 3×3 table (a cell spanning two columns), written by pdf-lib. */
async function pdfWithFigureAndTable(png: Buffer): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText('A page with a picture and a ruled table', { x: 72, y: 780, size: 14, font });
  page.drawImage(await doc.embedPng(png), { x: 72, y: 560, width: 200, height: 150 });
  const [left, top, w, h] = [72, 480, 150, 24];
  const line = (x1: number, y1: number, x2: number, y2: number) => page.drawLine({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 }, thickness: 1, color: rgb(0, 0, 0) });
  for (let r = 0; r <= 3; r += 1) line(left, top - r * h, left + 3 * w, top - r * h);
  for (let c = 0; c <= 3; c += 1) {
    // Row 0 has no line between columns 0 and 1: that cell spans two columns.
    if (c === 1) line(left + w, top - h, left + w, top - 3 * h);
    else line(left + c * w, top, left + c * w, top - 3 * h);
  }
  const cell = (text: string, r: number, c: number) => page.drawText(text, { x: left + c * w + 6, y: top - r * h - 17, size: 11, font });
  cell('Region and quarter', 0, 0);
  cell('Total', 0, 2);
  [['North', 'Q1', '10'], ['South', 'Q2', '7']].forEach((row, i) => row.forEach((text, c) => cell(text, i + 1, c)));
  return doc.save();
}

describe('figures', () => {
  it('a DOCX picture is a figure whose asset is the embedded image byte for byte, with its alt text, and only its tenant reads it', async () => {
    const data = await readFile(fixturePath('word_sample.docx'));
    const manifest = await packageOf('word_sample.docx', data);
    const [figure] = blocksOf(manifest, 'figure') as FigureBlock[];
    expect(figure?.asset).toMatch(/^[0-9a-f]{64}$/);
    expect(figure?.alt).toMatch(/duck/i);
    const media = [...(await zipEntries(data)).entries()].filter(([name]) => name.startsWith('word/media/'));
    const served = await assetBytes(manifest, figure!.asset!);
    expect(served.status).toBe(200);
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(media.some(([, entry]) => entry.equals(bytes))).toBe(true);
    expect(manifest.assets.find((a) => a.sha256 === figure!.asset)?.role).toBe('figure');
    expect((await assetBytes(manifest, figure!.asset!, bob)).status).toBe(404);
  }, 120_000);

  it('a PDF picture is a figure at its place whose asset has the embedded pixels', async () => {
    const raw = Buffer.alloc(40 * 30 * 3);
    for (let i = 0; i < raw.length; i += 1) raw[i] = (i * 7) % 251;
    const png = await sharp(raw, { raw: { width: 40, height: 30, channels: 3 } }).png().toBuffer();
    const manifest = await packageOf('figure-and-table.pdf', await pdfWithFigureAndTable(png));
    const [figure] = blocksOf(manifest, 'figure') as FigureBlock[];
    expect(figure).toMatchObject({ page: 0 });
    // Drawn at x 72..272, y (top-left origin) 842-710=132..282.
    expect(figure!.bbox!.map((v) => Math.round(v))).toEqual([72, 132, 272, 282]);
    const served = Buffer.from(await (await assetBytes(manifest, figure!.asset!)).arrayBuffer());
    const pixels = await sharp(served).removeAlpha().raw().toBuffer();
    expect(pixels.equals(raw)).toBe(true);
    expect((await assetBytes(manifest, figure!.asset!, bob)).status).toBe(404);
  }, 120_000);
});

describe('tables', () => {
  it('a ruled PDF table gives its cells and spans', async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#808080' } }).png().toBuffer();
    const manifest = await packageOf('ruled.pdf', await pdfWithFigureAndTable(png));
    const [table] = blocksOf(manifest, 'table') as TableBlock[];
    expect(table).toMatchObject({ rows: 3, columns: 3 });
    expect(table!.cells.find((c) => c.row === 0 && c.col === 0)).toMatchObject({ colSpan: 2, rowSpan: 1, text: 'Region and quarter' });
    expect(table!.cells.filter((c) => c.row > 0).map((c) => c.text)).toEqual(['North', 'Q1', '10', 'South', 'Q2', '7']);
  }, 120_000);

  it('a DOCX with merged cells gives the spans of its XML', async () => {
    const manifest = await packageOf('word_tables.docx', await readFile(fixturePath('word_tables.docx')));
    const tables = blocksOf(manifest, 'table') as TableBlock[];
    expect(tables.length).toBeGreaterThanOrEqual(7);
    expect(tables.some((t) => t.cells.some((c) => c.colSpan > 1))).toBe(true);
    expect(tables.some((t) => t.cells.some((c) => c.rowSpan > 1))).toBe(true);
    for (const t of tables) expect(t.cells.reduce((n, c) => n + c.rowSpan * c.colSpan, 0)).toBe(t.rows * t.columns);
    expect(manifest.markdown).toContain('<table>');
  }, 120_000);

  it('an XLSX with merged cells gives them as spans', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['Region', 'Q1', '', 'Q2', ''],
      ['', 'units', 'revenue', 'units', 'revenue'],
      ['North', 10, 1000, 12, 1300],
    ]);
    sheet['!merges'] = [
      { s: { r: 0, c: 0 }, e: { r: 1, c: 0 } },
      { s: { r: 0, c: 1 }, e: { r: 0, c: 2 } },
      { s: { r: 0, c: 3 }, e: { r: 0, c: 4 } },
    ];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Sales');
    const manifest = await packageOf('merged.xlsx', XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const [table] = blocksOf(manifest, 'table') as TableBlock[];
    expect(table).toMatchObject({ name: 'Sales', rows: 3, columns: 5 });
    expect(table!.cells.filter((c) => c.rowSpan > 1 || c.colSpan > 1).map((c) => [c.row, c.col, c.rowSpan, c.colSpan, c.text])).toEqual([
      [0, 0, 2, 1, 'Region'],
      [0, 1, 1, 2, 'Q1'],
      [0, 3, 1, 2, 'Q2'],
    ]);
  }, 120_000);
});
