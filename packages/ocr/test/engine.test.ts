import { readFileSync } from 'node:fs';
import { describe, expect, it, jest } from '@jest/globals';
import { containsSnippet, fixturePath } from '@readpack/testing';
import { OcrEngine, type OcrError } from '@readpack/ocr';

// Worker start-up and OCR take seconds each, many times that on a loaded shared machine.
jest.setTimeout(120_000);

const testocr = readFileSync(fixturePath('testocr.png'));
const SNIPPET = 'This is a lot of 12 point text to test the';

async function rejection(promise: Promise<unknown>): Promise<OcrError> {
  try {
    await promise;
  } catch (err) {
    return err as OcrError;
  }
  throw new Error('expected a rejection');
}

async function withEngine(options: ConstructorParameters<typeof OcrEngine>[0], use: (engine: OcrEngine) => Promise<void>): Promise<void> {
  const engine = new OcrEngine(options);
  try {
    await use(engine);
  } finally {
    await engine.close();
  }
}

describe('OcrEngine', () => {
  it('runs two pages at once with concurrency 2, on two workers', () =>
    withEngine({ concurrency: 2 }, async (engine) => {
      const pages = [engine.recognize(testocr), engine.recognize(readFileSync(fixturePath('baiona_color.jpg')))] as const;
      // Both were dispatched at once, each to its own (starting) worker; nothing waits in the queue.
      expect(engine.stats()).toMatchObject({ workers: 2, busy: 2, queued: 0 });
      const [a, b] = await Promise.all(pages);
      expect(containsSnippet(a.text, SNIPPET)).toBe(true);
      expect(containsSnippet(b.text, 'BAIONA')).toBe(true);
      expect(engine.stats()).toMatchObject({ workers: 2, busy: 0, started: 2 });
    }));

  it('queues pages beyond its concurrency and keeps the worker warm between them', () =>
    withEngine({ concurrency: 1 }, async (engine) => {
      const pages = [engine.recognize(testocr), engine.recognize(testocr)];
      expect(engine.stats()).toMatchObject({ workers: 1, busy: 1, queued: 1 });
      for (const page of await Promise.all(pages)) expect(containsSnippet(page.text, SNIPPET)).toBe(true);
      expect(engine.stats().started).toBe(1);
    }));

  it('replaces a worker after pagesPerWorker pages', () =>
    withEngine({ pagesPerWorker: 1 }, async (engine) => {
      await engine.recognize(testocr);
      await engine.recognize(testocr);
      expect(engine.stats()).toMatchObject({ started: 2, workers: 0 });
    }));

  it('replaces a worker after a failed page and goes on', () =>
    withEngine({}, async (engine) => {
      const err = await rejection(engine.recognize(Buffer.from('these bytes are no image at all')));
      expect(err.code).toBe('recognition_failed');
      const page = await engine.recognize(testocr);
      expect(containsSnippet(page.text, SNIPPET)).toBe(true);
      expect(engine.stats().started).toBe(2);
    }));

  it('stops a page that runs past pageTimeoutMs, and the next page gets a new worker', () =>
    withEngine({ pageTimeoutMs: 1 }, async (engine) => {
      await engine.warmUp('eng');
      const err = await rejection(engine.recognize(readFileSync(fixturePath('typewriter.png'))));
      expect(err.code).toBe('timeout');
      expect(engine.stats()).toMatchObject({ workers: 0, started: 1 });
    }));

  it('serves two language sets with one place by swapping the idle worker', () =>
    withEngine({ concurrency: 1 }, async (engine) => {
      await engine.warmUp('eng');
      await engine.recognize(testocr, { lang: 'eng+chi_sim' });
      expect(engine.stats()).toMatchObject({ workers: 1, started: 2 });
    }));

  it('rejects a missing language on first use with the setting to fix, and bad pixels before any work', () =>
    withEngine({}, async (engine) => {
      const missing = await rejection(engine.recognize(testocr, { lang: 'xyz_missing' }));
      expect(missing.code).toBe('language_data_missing');
      expect(missing.message).toContain('TESSDATA_DIR');
      const bad = await rejection(engine.recognize({ gray: Buffer.alloc(10), width: 4, height: 4 }));
      expect(bad.code).toBe('invalid_image');
      expect(engine.stats().started).toBe(0);
    }));

  it('close() rejects running and queued pages and refuses new ones', async () => {
    const engine = new OcrEngine({ concurrency: 1 });
    const outcomes = Promise.all([rejection(engine.recognize(testocr)), rejection(engine.recognize(testocr))]);
    await engine.close();
    const [running, queued] = await outcomes;
    expect(running.code).toBe('engine_closed');
    expect(queued.code).toBe('engine_closed');
    expect((await rejection(engine.recognize(testocr))).code).toBe('engine_closed');
    expect(engine.stats().workers).toBe(0);
  });
});
