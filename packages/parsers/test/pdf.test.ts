import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { containsSnippet, fixturePath } from '@readpack/testing';
import { parseDocument } from '../src/index.js';
import { minimalPdf, PDF, rejectionCode, scratchDir } from './helpers.js';

const ENCRYPTED = 'libreoffice-writer-password.pdf';
const pdf = (name: string, password?: string) =>
  parseDocument({ path: fixturePath(name), mediaType: PDF, ...(password !== undefined ? { password } : {}) });

describe('PDF', () => {
  let scratch: Awaited<ReturnType<typeof scratchDir>>;
  beforeAll(async () => {
    scratch = await scratchDir();
  });
  afterAll(async () => {
    await scratch.cleanup();
  });

  it('joins pages with a blank line, without page markers, and counts non-whitespace characters', async () => {
    const doc = await pdf('REPAIR-2022-INV-001_multipage.pdf');
    const pages = doc.pages ?? [];
    expect(pages).toHaveLength(3);
    expect(doc.text).toBe(pages.map((p) => p.text).join('\n\n'));
    for (const page of pages) {
      expect(page.charCount).toBe(page.text.replace(/\s/g, '').length);
      expect(page.charCount).toBeGreaterThan(50);
    }
    // The invoice's ruled grids (the totals box of each of its two estimates, pages 1 and 2) are
    // tables; nothing else is.
    expect(doc.tables.map((t) => t.rows.flat().some((cell) => cell.includes('GRAND TOTAL')))).toEqual([true, true]);
    expect(doc.body.filter((b) => b.type === 'table').map((b) => b.page)).toEqual([0, 1]);
  });

  it('reads the version of pdfjs-dist from its package.json', async () => {
    const doc = await pdf('pdflatex-image.pdf');
    const installed = JSON.parse(await readFile(new URL('../../../node_modules/pdfjs-dist/package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(doc.origin.version).toBe(installed.version);
    expect(doc.pages?.[0]?.origin).toEqual(doc.origin);
  });

  it('extracts CJK text (needs the pdfjs CMaps)', async () => {
    const doc = await pdf('jo.pdf');
    expect(doc.pages?.[0]?.charCount).toBeGreaterThan(100);
    expect(containsSnippet(doc.text, 'わたくしといふ現象は')).toBe(true);
    // Vertical writing: columns top to bottom, from the right; the upper tier before the lower one.
    const order = ['序', 'わたくしといふ現象は', '假定された有機交流電燈の', 'ひとつの青い照明です', 'けれどもこれら新世代沖積世の', '大正十三年一月廿日'];
    const at = order.map((s) => doc.text.indexOf(s));
    expect(at.every((p, i) => p >= 0 && (i === 0 || p > at[i - 1]!))).toBe(true);
    expect(doc.pages?.[0]?.cidOrderings).toEqual(['Japan1']);
  });

  it.each(['epson.pdf', 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf'])(
    'keeps the pages of the scanned %s, with (almost) no text for the OCR stage',
    async (name) => {
      const doc = await pdf(name);
      const expected = name === 'epson.pdf' ? 1 : 3;
      expect(doc.pages).toHaveLength(expected);
      for (const page of doc.pages ?? []) {
        expect(page.charCount).toBeLessThanOrEqual(5);
        expect(page.origin.engine).toBe('text-layer');
      }
    },
  );

  it('opens the encrypted PDF with the right user password', async () => {
    const doc = await pdf(ENCRYPTED, 'openpassword');
    expect(containsSnippet(doc.text, 'takimata sanctus est Lorem ipsum dolor sit amet')).toBe(true);
    expect(doc.pages?.[0]?.charCount).toBeGreaterThan(100);
  });

  it('reports encrypted_document without a password and with a wrong one', async () => {
    expect(await rejectionCode(pdf(ENCRYPTED))).toBe('encrypted_document');
    expect(await rejectionCode(pdf(ENCRYPTED, 'wrong-password'))).toBe('encrypted_document');
  });

  it('reports corrupt_document for a truncated PDF, invalid.pdf, a 0-byte file and random bytes', async () => {
    expect(await rejectionCode(pdf('pdflatex-4-pages.truncated.pdf'))).toBe('corrupt_document');
    expect(await rejectionCode(pdf('invalid.pdf'))).toBe('corrupt_document');
    const empty = await scratch.file('empty.pdf', new Uint8Array(0));
    expect(await rejectionCode(parseDocument({ path: empty, mediaType: PDF }))).toBe('corrupt_document');
    const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 251);
    const noise = await scratch.file('noise.pdf', random);
    expect(await rejectionCode(parseDocument({ path: noise, mediaType: PDF }))).toBe('corrupt_document');
  });

  it('reports empty_document for a PDF with no pages', async () => {
    const path = await scratch.file('no-pages.pdf', minimalPdf('<< /Type /Pages /Kids [] /Count 0 >>'));
    expect(await rejectionCode(parseDocument({ path, mediaType: PDF }))).toBe('empty_document');
  });

  it('reports too_many_pages beyond maxPages, before extracting text', async () => {
    const started = Date.now();
    const code = await rejectionCode(parseDocument({ path: fixturePath('GeoTopo-komprimiert.pdf'), mediaType: PDF }, { maxPages: 100 }));
    expect(code).toBe('too_many_pages');
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(parseDocument({ path: fixturePath('REPAIR-2022-INV-001_multipage.pdf'), mediaType: PDF }, { maxPages: 3 })).resolves.toBeDefined();
  });
});
