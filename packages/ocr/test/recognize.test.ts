import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import sharp from 'sharp';
import { cjkTextPng, containsSnippet, corpusManifest, fixturePath } from '@readpack/testing';
import { OcrEngine, pixelBoxToPoints } from '@readpack/ocr';

// Worker start-up and OCR take seconds each, many times that on a loaded shared machine.
jest.setTimeout(120_000);

/** Large scans are downscaled first, as the pipeline does: OCR time grows with the pixel count. */
const MAX_OCR_PIXELS = 4_000_000;

async function imageBytes(name: string): Promise<Buffer> {
  const bytes = readFileSync(fixturePath(name));
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  if (width * height <= MAX_OCR_PIXELS) return bytes;
  const scale = Math.sqrt(MAX_OCR_PIXELS / (width * height));
  return sharp(bytes).resize(Math.floor(width * scale)).png().toBuffer();
}

const images = corpusManifest().filter((f) => f.media_type.startsWith('image/'));

let engine: OcrEngine;
beforeAll(() => {
  engine = new OcrEngine({ concurrency: 1 });
});
afterAll(async () => {
  await engine.close();
});

describe('OCR of the corpus images', () => {
  it('covers every image of the corpus', () => {
    expect(images.map((f) => f.name).sort()).toEqual(expect.arrayContaining(['baiona_color.jpg', 'testocr.png', 'typewriter.png']));
  });

  it.each(images.map((f) => [f.name, f.snippets.map((s) => s.text)] as const))('%s yields its MANIFEST snippets', async (name, snippets) => {
    const page = await engine.recognize(await imageBytes(name));
    for (const snippet of snippets) expect([snippet, containsSnippet(page.text, snippet)]).toEqual([snippet, true]);
    expect(page.confidence).toBeGreaterThan(50);
  });
});

describe('OCR results', () => {
  it('gives lines and words with boxes in the pixel coordinates of the image, from raw gray pixels', async () => {
    const { data, info } = await sharp(fixturePath('testocr.png')).flatten({ background: '#fff' }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    const page = await engine.recognize({ gray: data, width: info.width, height: info.height });
    expect(page.lines[0]!.text).toBe('This is a lot of 12 point text to test the');
    expect(page.text.startsWith(page.lines[0]!.text)).toBe(true);
    expect(page.words[0]).toMatchObject({ text: 'This', line: 0 });
    for (const word of page.words) {
      const line = page.lines[word.line]!;
      expect(line.text).toContain(word.text);
      expect(word.bbox.x0).toBeGreaterThanOrEqual(line.bbox.x0);
      expect(word.bbox.x1).toBeLessThanOrEqual(line.bbox.x1);
      expect(word.bbox.x1).toBeLessThanOrEqual(info.width);
      expect(word.bbox.y1).toBeLessThanOrEqual(info.height);
      expect(word.confidence).toBeGreaterThanOrEqual(0);
      expect(word.confidence).toBeLessThanOrEqual(100);
    }
    // Lines go down the page.
    const tops = page.lines.map((l) => l.bbox.y0);
    expect(tops).toEqual([...tops].sort((a, b) => a - b));
  });

  it('converts pixel boxes of a page rendered at a dpi to points', () => {
    expect(pixelBoxToPoints({ x0: 300, y0: 600, x1: 450, y1: 3300 }, 300)).toEqual({ x0: 72, y0: 144, x1: 108, y1: 792 });
    expect(() => pixelBoxToPoints({ x0: 0, y0: 0, x1: 1, y1: 1 }, 0)).toThrow(RangeError);
  });

  it('reads Simplified Chinese with chi_sim', async () => {
    // Characters whose Japanese and Chinese glyphs agree: the installed CJK font may be a JP face.
    const lines = ['光学识别技术', '我们把图片变成文本'];
    const page = await engine.recognize(await cjkTextPng(lines), { lang: 'chi_sim' });
    for (const line of lines) expect([line, containsSnippet(page.text, line)]).toEqual([line, true]);
  });
});
