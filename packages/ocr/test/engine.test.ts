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

/** Waits (polling, up to a minute on a loaded machine) until the engine reports `done`; the assertion is on what it reports, not on how long it took. */
async function until(engine: OcrEngine, done: (stats: ReturnType<OcrEngine['stats']>) => boolean): Promise<void> {
  for (let waited = 0; !done(engine.stats()); waited += 50) {
    if (waited > 60_000) throw new Error(`the engine never got there: ${JSON.stringify(engine.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
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

describe('OcrEngine, elastic (warmWorkers below concurrency)', () => {
  it('grows to N workers under N pages at once, reads the same text on each, and shrinks back to the warm worker once idle', () =>
    withEngine({ concurrency: 3, warmWorkers: 1, idleWorkerMs: 200 }, async (engine) => {
      const alone = await engine.recognize(testocr);
      expect(containsSnippet(alone.text, SNIPPET)).toBe(true);
      expect(engine.stats()).toMatchObject({ workers: 1, started: 1 });
      const pages = [engine.recognize(testocr), engine.recognize(testocr), engine.recognize(testocr)];
      // The warm worker takes the first page; two more start for the others, none waits.
      expect(engine.stats()).toMatchObject({ workers: 3, busy: 3, queued: 0 });
      // Two of the three were read on grown workers: the same reading, word for word.
      for (const page of await Promise.all(pages)) expect(page).toEqual(alone);
      expect(engine.stats().started).toBe(3);
      await until(engine, (stats) => stats.workers <= 1);
      expect(engine.stats()).toMatchObject({ workers: 1, busy: 0, idleStopped: 2 });
      // The worker kept is warm: the next page starts none.
      expect(await engine.recognize(testocr)).toEqual(alone);
      expect(engine.stats()).toMatchObject({ workers: 1, started: 3 });
    }));

  it('with warmWorkers 0, every worker stops once idle and the next page starts one', () =>
    withEngine({ concurrency: 2, warmWorkers: 0, idleWorkerMs: 100 }, async (engine) => {
      await Promise.all([engine.recognize(testocr), engine.recognize(testocr)]);
      await until(engine, (stats) => stats.workers === 0);
      expect(engine.stats()).toMatchObject({ started: 2, idleStopped: 2 });
      expect(containsSnippet((await engine.recognize(testocr)).text, SNIPPET)).toBe(true);
      expect(engine.stats().started).toBe(3);
    }));

  it('a page that fails on a grown worker fails as on any worker, and only that worker is replaced', () =>
    withEngine({ concurrency: 2, warmWorkers: 1, idleWorkerMs: 60_000 }, async (engine) => {
      await engine.warmUp('eng', 1);
      const good = engine.recognize(testocr);
      // First come, first served: the warm worker has the good page, a grown one the bad bytes.
      const bad = rejection(engine.recognize(Buffer.from('these bytes are no image at all')));
      expect(engine.stats()).toMatchObject({ workers: 2, busy: 2, started: 2 });
      expect((await bad).code).toBe('recognition_failed');
      expect(containsSnippet((await good).text, SNIPPET)).toBe(true);
      expect(engine.stats()).toMatchObject({ workers: 1, busy: 0, idleStopped: 0 });
    }));

  it('a grown worker past pageTimeoutMs fails the page with timeout and is stopped', () =>
    withEngine({ concurrency: 2, warmWorkers: 1, pageTimeoutMs: 1 }, async (engine) => {
      const typewriter = readFileSync(fixturePath('typewriter.png'));
      const errors = await Promise.all([rejection(engine.recognize(typewriter)), rejection(engine.recognize(typewriter))]);
      expect(errors.map((e) => e.code)).toEqual(['timeout', 'timeout']);
      expect(engine.stats()).toMatchObject({ workers: 0, started: 2 });
    }));

  it('a second language set grows the pool instead of swapping; once idle, the set used last keeps its worker', () =>
    withEngine({ concurrency: 2, warmWorkers: 1, idleWorkerMs: 200 }, async (engine) => {
      await engine.warmUp('eng', 1);
      await engine.recognize(testocr, { lang: 'eng+chi_sim' });
      expect(engine.stats()).toMatchObject({ workers: 2, started: 2 });
      await until(engine, (stats) => stats.workers <= 1);
      expect(engine.stats()).toMatchObject({ workers: 1, idleStopped: 1 });
      await engine.recognize(testocr, { lang: 'eng+chi_sim' });
      expect(engine.stats().started).toBe(2);
    }));
});
