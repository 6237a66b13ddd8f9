import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { builtScript } from '../../../test/support/service-process.js';

const run = promisify(execFile);

/** The CommonJS libraries (node_modules/<name>) a fresh process has loaded after loading one stage's handler (built code). */
async function librariesOf(stage: string): Promise<string[]> {
  const index = pathToFileURL(builtScript('apps/worker/dist/stages/index.js')).href;
  const script = `
    const { handlerFor } = await import(${JSON.stringify(index)});
    await handlerFor(${JSON.stringify(stage)});
    const { createRequire } = await import('node:module');
    const files = Object.keys(createRequire(${JSON.stringify(index)}).cache).filter((p) => /\\.(c?js|node)$/.test(p));
    console.log(JSON.stringify([...new Set(files.map((p) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(p)?.[1]).filter(Boolean))]));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as string[];
}

describe('a consumer loads the libraries of its own stage only', () => {
  it('tesseract.js only in the OCR consumer, the DOC reader (word-extractor) in none', async () => {
    const loaded = Object.fromEntries(await Promise.all(['extract', 'render', 'ocr', 'mineru', 'assemble'].map(async (s) => [s, await librariesOf(s)] as const)));
    for (const [stage, libraries] of Object.entries(loaded)) {
      expect({ stage, tesseract: libraries.includes('tesseract.js') }).toEqual({ stage, tesseract: stage === 'ocr' });
      // Loaded by a parser thread for its first DOC (packages/parsers/test/lazy-readers.test.ts), never by a consumer's own thread.
      expect({ stage, docReader: libraries.includes('word-extractor') }).toEqual({ stage, docReader: false });
    }
  });
});
