import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDF_MEDIA_TYPE } from '@readpack/parsers';
import { numberedPdf } from '@readpack/testing';
import { ParsePool } from '../src/parse-pool.js';

/*
 * A large PDF's merge asks the parse pool to end its idle threads first (stages/extract.ts): the
 * threads really end, the pool parses again afterwards, and a thread with a task is never ended.
 */

let dir: string;
let small: string;
let large: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-parse-pool-test-'));
  small = join(dir, 'small.pdf');
  large = join(dir, 'large.pdf');
  await writeFile(small, (await numberedPdf({ pages: 2 })).bytes);
  await writeFile(large, (await numberedPdf({ pages: 60 })).bytes);
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('ParsePool.releaseIdleThreads', () => {
  it('ends idle parser threads, and the next parse starts one again', async () => {
    const pool = new ParsePool({ threads: 2, maxHeapMb: 512, timeoutMs: 60_000 });
    try {
      expect(await pool.releaseIdleThreads()).toBe(false); // no thread yet
      const first = await pool.parse({ path: small, mediaType: PDF_MEDIA_TYPE });
      expect(pool.threadCount).toBeGreaterThan(0);
      expect(await pool.releaseIdleThreads()).toBe(true);
      expect(pool.threadCount).toBe(0);
      const again = await pool.parse({ path: small, mediaType: PDF_MEDIA_TYPE });
      expect(again.text).toBe(first.text);
      expect(pool.threadCount).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('leaves the threads alone while a parse runs, and that parse completes', async () => {
    const pool = new ParsePool({ threads: 2, maxHeapMb: 512, timeoutMs: 60_000 });
    try {
      // A thread exists before the long parse starts: only the task in flight keeps it alive.
      await pool.parse({ path: small, mediaType: PDF_MEDIA_TYPE });
      const running = pool.parse({ path: large, mediaType: PDF_MEDIA_TYPE });
      expect(await pool.releaseIdleThreads()).toBe(false);
      const parsed = await running;
      expect(parsed.pages).toHaveLength(60);
      expect(pool.threadCount).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });
});
