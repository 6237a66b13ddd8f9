import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import sharp from 'sharp';
import { containsSnippet, fixturePath } from '@readpack/testing';
import { createOcrReader, NativeOcrEngine, OcrEngine, OcrError, splitTsvPages } from '@readpack/ocr';

jest.setTimeout(120_000);

const testocr = readFileSync(fixturePath('testocr.png'));
const SNIPPET = 'This is a lot of 12 point text to test the';

async function rejection(promise: Promise<unknown>): Promise<OcrError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OcrError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

let gray: { gray: Uint8Array; width: number; height: number };
beforeAll(async () => {
  const { data, info } = await sharp(testocr).flatten({ background: '#fff' }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  gray = { gray: data, width: info.width, height: info.height };
});

describe('NativeOcrEngine (Debian tesseract)', () => {
  let native: NativeOcrEngine;
  beforeAll(() => {
    native = new NativeOcrEngine({ maxBatch: 4 });
  });
  afterAll(async () => native.close());

  it('says which engine read a page: tesseract and the version the CLI reports', () => {
    expect(native.origin.parser).toBe('tesseract');
    expect(native.origin.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(createOcrReader('native').origin.parser).toBe('tesseract');
  });

  it('gives the same page as tesseract.js from the same pixels: text, paragraphs, lines, words with boxes', async () => {
    const js = new OcrEngine();
    try {
      const [a, b] = await Promise.all([native.recognize(gray), js.recognize(gray)]);
      expect(a.lines[0]!.text).toBe(SNIPPET);
      expect(a.text).toBe(b.text);
      expect(a.paragraphs.map((p) => p.bbox)).toEqual(b.paragraphs.map((p) => p.bbox));
      expect(a.lines.map((l) => l.bbox)).toEqual(b.lines.map((l) => l.bbox));
      expect(Math.abs(a.confidence - b.confidence)).toBeLessThan(2);
      for (const word of a.words) {
        const line = a.lines[word.line]!;
        expect(line.text).toContain(word.text);
        expect(a.paragraphs[line.paragraph]!.text).toContain(line.text);
        expect(word.bbox.x1).toBeLessThanOrEqual(gray.width);
      }
    } finally {
      await js.close();
    }
  });

  it('reads waiting pages in one process (a list file), each page its own result', async () => {
    const before = native.stats().started;
    const small = await sharp(testocr).extract({ left: 0, top: 0, width: 640, height: 120 }).png().toBuffer();
    const pages = await Promise.all([native.recognize(testocr), native.recognize(small), native.recognize(small), native.recognize(testocr)]);
    // The first page starts a process at once; the three queued meanwhile share the next one.
    expect(native.stats().started - before).toBe(2);
    expect(containsSnippet(pages[0]!.text, SNIPPET)).toBe(true);
    expect(pages[1]!.lines).toHaveLength(pages[2]!.lines.length);
    expect(pages[1]!.lines.length).toBeLessThan(pages[3]!.lines.length);
    expect(pages[3]!.text).toBe(pages[0]!.text);
  });

  it('fails an unreadable image alone, with recognition_failed, when it shares a batch', async () => {
    const bad = Buffer.from('these bytes are no image at all');
    const results = await Promise.allSettled([native.recognize(testocr), native.recognize(testocr), native.recognize(bad), native.recognize(testocr)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[2] as PromiseRejectedResult).reason as OcrError;
    expect(reason).toBeInstanceOf(OcrError);
    expect(reason.code).toBe('recognition_failed');
  });

  it('stops a page past pageTimeoutMs with timeout, and rejects pages after close with engine_closed', async () => {
    const slow = new NativeOcrEngine({ pageTimeoutMs: 1 });
    expect((await rejection(slow.recognize(testocr))).code).toBe('timeout');
    const queued = rejection(slow.recognize(testocr));
    await slow.close();
    expect((await queued).code).toBe('engine_closed');
    expect((await rejection(slow.recognize(testocr))).code).toBe('engine_closed');
  });

  it('fails at construction with worker_failed when the executable is missing', () => {
    expect(() => new NativeOcrEngine({ command: '/nonexistent/tesseract' })).toThrow(OcrError);
  });

  it('splits a multi-image TSV by its page_num column', () => {
    const tsv = ['level\tpage_num\tblock_num', '1\t1\t0', '5\t1\t1', '1\t2\t0', '5\t2\t1', '5\t2\t2'].join('\n');
    expect(splitTsvPages(tsv, 2).map((p) => p.split('\n').length)).toEqual([2, 3]);
  });
});
