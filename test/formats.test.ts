import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as XLSX from '@e965/xlsx';
import pptxgenjs from 'pptxgenjs';
import { STAGES } from '@readpack/config';
import { openStorage } from '@readpack/package-store';
import { assertValidPackage, buildZip } from '@readpack/testing';
import type { FlowBlock, TableBlock } from '@readpack/reading-package';
import { flatOdp, flatOdt, removeTestProfile, sofficeConvert } from '../packages/parsers/test/libreoffice.js';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from './harness.js';

/**
 * Spreadsheets, legacy and open formats through the real pipeline (real Redis, BullMQ and
 * LibreOffice): the convert stage turns ODT, RTF and PPT into PDFs that take the PDF path; XLS and
 * ODS are read by SheetJS; a deployment without a convert consumer refuses a PPT with 415.
 */

interface Manifest {
  text: string;
  origin: { parser: string; version: string };
  source: { mediaType: string; sha256: string };
  body: FlowBlock[];
  pages?: { index: number; origin: { parser: string } }[];
}

let pipeline: Pipeline;
let base: string;
const sources: Record<string, Uint8Array> = {};

beforeAll(async () => {
  pipeline = await startPipeline();
  base = pipeline.api.url;
  const odt = await sofficeConvert('report.fodt', flatOdt(), 'odt');
  sources['report.odt'] = odt;
  sources['report.rtf'] = await sofficeConvert('report.odt', odt, 'rtf');
  sources['deck.ppt'] = await sofficeConvert('deck.fodp', flatOdp(), 'ppt');
  sources['report.epub'] = await sofficeConvert('report.fodt', flatOdt(), 'epub');
  // Legacy Word written by LibreOffice, read natively (word-extractor): no conversion.
  sources['report.doc'] = await sofficeConvert('report.odt', odt, 'doc');
  sources['deck.pptx'] = await pptxDeck();
  const book = XLSX.utils.book_new();
  const sheet = XLSX.utils.aoa_to_sheet([['Quarterly', null], ['Region', 'Revenue'], ['North', 1200], ['South', 800]]);
  sheet['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 0, c: 1 } }];
  XLSX.utils.book_append_sheet(book, sheet, 'Sales');
  sources['sales.xls'] = XLSX.write(book, { type: 'buffer', bookType: 'biff8' }) as Uint8Array;
  sources['sales.ods'] = XLSX.write(book, { type: 'buffer', bookType: 'ods' }) as Uint8Array;
}, 180_000);
afterAll(async () => {
  await pipeline?.stop();
  await removeTestProfile();
});

/** pptxgenjs runs as ESM (its default export is the class) but types itself as CommonJS, where the class is `.default`. */
const PptxGenJS = pptxgenjs as unknown as typeof pptxgenjs.default;

/** A two-slide deck: a title and bullets, then a table with a merged cell and speaker notes. */
async function pptxDeck(): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  const first = pptx.addSlide();
  first.addText('Quarterly review', { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 32, bold: true });
  first.addText([{ text: 'Revenue grew', options: { bullet: true } }, { text: 'Costs fell', options: { bullet: true } }], { x: 0.5, y: 1.5, w: 9, h: 1.5 });
  const second = pptx.addSlide();
  second.addTable([[{ text: 'Region' }, { text: 'Revenue' }], [{ text: 'North and South', options: { colspan: 2 } }]], { x: 0.5, y: 0.5, w: 6 });
  second.addNotes('Say the numbers slowly.');
  return new Uint8Array((await pptx.write({ outputType: 'nodebuffer' })) as Buffer);
}

async function parse(name: string): Promise<{ jobId: string; manifest: Manifest; ms: number }> {
  const started = performance.now();
  const res = await upload(base, [{ name, data: sources[name]! }]);
  expect(res.status).toBe(202);
  const { jobId } = (await res.json()) as { jobId: string };
  const final = (await pollUntilTerminal(base, jobId, 150_000)).at(-1)!;
  const ms = performance.now() - started;
  expect(final).toMatchObject({ status: 'done', phase: 'view_ready' });
  const manifest = (await (await fetch(`${base}/api/files/job/${jobId}/package`)).json()) as Manifest;
  // Every stored package, whatever its format, satisfies the reading-package JSON Schema.
  const storage = await openStorage(resolve(pipeline.config.dataDir), pipeline.config.storage.s3);
  assertValidPackage(await storage.packages.read(jobId));
  return { jobId, manifest, ms };
}

const squash = (text: string) => text.replace(/\s+/g, ' ');

describe('converted with LibreOffice, then read as PDF', () => {
  for (const [name, mediaType] of [
    ['report.odt', 'application/vnd.oasis.opendocument.text'],
    ['report.rtf', 'application/rtf'],
  ] as const) {
    it(`${name} reaches done with its text and table cells; source stays the upload, origin names LibreOffice`, async () => {
      const { manifest } = await parse(name);
      expect(manifest.source.mediaType).toBe(mediaType);
      expect(manifest.origin.parser).toBe('libreoffice');
      expect(manifest.origin.version).toMatch(/^\d+\.\d+/);
      expect(manifest.pages?.length).toBeGreaterThanOrEqual(1);
      // Pages keep the origin of what read the PDF's text layer (or OCR), not the converter.
      expect(manifest.pages?.[0]?.origin.parser).not.toBe('libreoffice');
      const text = squash(manifest.text);
      for (const snippet of ['Annual report', 'The first paragraph of the annual report.', 'Results by region', 'North', '1200', 'Closing words of the report.']) {
        expect(text).toContain(snippet);
      }
      // Headings, where the PDF reader recognises them, keep their text.
      for (const heading of manifest.body.filter((b) => b.type === 'heading')) expect(['Annual report', 'Results by region']).toContain((heading as { text: string }).text);
    }, 180_000);
  }

  it('deck.ppt reaches done with the text of both slides, one page per slide', async () => {
    const { manifest } = await parse('deck.ppt');
    expect(manifest.pages).toHaveLength(2);
    const text = squash(manifest.text);
    for (const snippet of ['Quarterly review slide', 'Revenue grew in every region', 'Second slide about next steps']) expect(text).toContain(snippet);
  }, 180_000);

  it('a file LibreOffice cannot load ends failed with a clear code, never stuck', async () => {
    // An ODT whose content is garbage: sniffed as ODT (its mimetype entry), unreadable for LibreOffice.
    sources['broken.odt'] = buildZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 0 },
      { name: 'content.xml', data: '<not-odf' },
    ]);
    const res = await upload(base, [{ name: 'broken.odt', data: sources['broken.odt'] }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    const final = (await pollUntilTerminal(base, jobId, 150_000)).at(-1)!;
    expect(final.status).toBe('failed');
    expect(final.error?.code).toBe('conversion_failed');
  }, 180_000);
});

describe('EPUB through the pipeline (read natively: LibreOffice has no EPUB import)', () => {
  it('report.epub reaches done with its text and its table', async () => {
    const { manifest } = await parse('report.epub');
    expect(manifest.origin.parser).toBe('readpack-epub');
    expect(squash(manifest.text)).toContain('The first paragraph of the annual report.');
    const table = manifest.body.find((b): b is TableBlock => b.type === 'table')!;
    expect(table.cells.map((c) => c.text)).toEqual(['Region', 'Revenue', 'North', '1200', 'South', '800']);
  }, 120_000);
});

describe('PPTX and DOC through the pipeline (read natively)', () => {
  it('deck.pptx reaches done: one page per slide, its list, its table with the merged cell, its speaker notes', async () => {
    const { jobId, manifest } = await parse('deck.pptx');
    expect(manifest.pages).toHaveLength(2);
    expect(squash(manifest.text)).toContain('Quarterly review');
    const list = manifest.body.find((b) => b.type === 'list');
    expect(list && list.type === 'list' && list.items.map((i) => i.text)).toEqual(['Revenue grew', 'Costs fell']);
    const table = manifest.body.find((b): b is TableBlock => b.type === 'table')!;
    expect(table.cells.find((c) => c.text === 'North and South')).toMatchObject({ colSpan: 2 });
    const stored = await (await openStorage(resolve(pipeline.config.dataDir), pipeline.config.storage.s3)).packages.read(jobId);
    expect(stored?.furniture.some((f) => f.type === 'note' && f.text === 'Say the numbers slowly.')).toBe(true);
  }, 120_000);

  it('report.doc reaches done with its text, table text and footnote, without LibreOffice', async () => {
    const { manifest } = await parse('report.doc');
    expect(manifest.origin.parser).toBe('word-extractor');
    for (const snippet of ['The first paragraph of the annual report.', 'Results by region', 'North', '1200', 'A footnote about the figures.']) expect(squash(manifest.text)).toContain(snippet);
  }, 120_000);
});

describe('spreadsheets through the pipeline', () => {
  for (const name of ['sales.xls', 'sales.ods']) {
    it(`${name} reaches done with a heading and a table with its merged title`, async () => {
      const { manifest } = await parse(name);
      expect(manifest.body[0]).toMatchObject({ type: 'heading', level: 2, text: 'Sales' });
      const table = manifest.body.find((b): b is TableBlock => b.type === 'table')!;
      expect(table).toMatchObject({ name: 'Sales', rows: 4, columns: 2 });
      expect(table.cells[0]).toMatchObject({ text: 'Quarterly', colSpan: 2 });
      expect(table.cells.map((c) => c.text)).toEqual(['Quarterly', 'Region', 'Revenue', 'North', '1200', 'South', '800']);
    }, 120_000);
  }
});

describe('conversion time', () => {
  it('per page through the pipeline vs soffice alone on the same file', async () => {
    const paragraphs = Array.from({ length: 360 }, (_, i) => `<p>Paragraph ${i + 1} of the long report, written to fill pages with ordinary running text for the timing.</p>`).join('');
    sources['long.odt'] = await sofficeConvert('long.html', `<html><body><h1>Long report</h1>${paragraphs}</body></html>`, 'odt');
    // Twice: the first conversion in the consumer may pay for creating its profile.
    const first = await parse('long.odt');
    const second = await parse('long.odt');
    const pages = second.manifest.pages?.length ?? 1;
    expect(pages).toBeGreaterThan(3);
    const dir = await mkdtemp(join(tmpdir(), 'readpack-bench-'));
    const profile = pathToFileURL(join(dir, 'profile')).href;
    try {
      await writeFile(join(dir, 'long.odt'), sources['long.odt']);
      const direct = async () => {
        const t = performance.now();
        await promisify(execFile)('soffice', [`-env:UserInstallation=${profile}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', join(dir, 'out'), join(dir, 'long.odt')], { timeout: 120_000 });
        return performance.now() - t;
      };
      const cold = await direct();
      const warm = await direct();
      const perPage = (ms: number) => `${Math.round(ms / pages)} ms/page`;
      process.stdout.write(
        `conversion figures (long.odt, ${pages} pages): pipeline upload→done ${Math.round(first.ms)} ms (${perPage(first.ms)}), again ${Math.round(second.ms)} ms (${perPage(second.ms)}); ` +
          `soffice --convert-to pdf alone: new profile ${Math.round(cold)} ms (${perPage(cold)}), existing profile ${Math.round(warm)} ms (${perPage(warm)})\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('conversion off', () => {
  it('a .ppt answers 415 converter_unavailable at upload when no convert consumer runs', async () => {
    const off = await startPipeline({}, { stages: STAGES.filter((s) => s !== 'convert') });
    try {
      const res = await upload(off.api.url, [{ name: 'deck.ppt', data: sources['deck.ppt']! }]);
      expect(res.status).toBe(415);
      const body = (await res.json()) as { error: { code: string; message: string; detected: string } };
      expect(body.error).toMatchObject({ code: 'converter_unavailable', detected: 'application/vnd.ms-powerpoint' });
      expect(body.error.message).toMatch(/LibreOffice/);
      // Formats read without LibreOffice are still accepted.
      expect((await upload(off.api.url, [{ name: 'sales.xls', data: sources['sales.xls']! }])).status).toBe(202);
    } finally {
      await off.stop();
    }
  }, 60_000);
});
