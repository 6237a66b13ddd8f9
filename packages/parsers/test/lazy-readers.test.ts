import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { fixturePath } from '@readpack/testing';
import { builtScript } from '../../../test/support/service-process.js';

const run = promisify(execFile);

/**
 * In a fresh process (built code, as a parser thread loads it): is word-extractor (the DOC reader's
 * library, CommonJS, so it shows in require's cache) loaded after importing the parsers and
 * parsing a PDF, and after asking for a DOC?
 */
async function loadedAfter(): Promise<{ afterPdf: boolean; afterDoc: boolean; docError: string }> {
  const index = pathToFileURL(builtScript('packages/parsers/dist/index.js')).href;
  const script = `
    const { parseDocument } = await import(${JSON.stringify(index)});
    const { createRequire } = await import('node:module');
    const loaded = () => Object.keys(createRequire(${JSON.stringify(index)}).cache).some((p) => p.includes('/node_modules/word-extractor/'));
    await parseDocument({ path: ${JSON.stringify(fixturePath('pdflatex-image.pdf'))}, mediaType: 'application/pdf' });
    const afterPdf = loaded();
    // A PDF given as a DOC: the DOC reader is loaded to read it, and refuses it as a document error.
    const docError = await parseDocument({ path: ${JSON.stringify(fixturePath('pdflatex-image.pdf'))}, mediaType: 'application/msword' }).then(() => 'none', (error) => error.code);
    console.log(JSON.stringify({ afterPdf, afterDoc: loaded(), docError }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { afterPdf: boolean; afterDoc: boolean; docError: string };
}

describe('readers are loaded by the documents that need them', () => {
  it('a process that parses PDFs never loads the DOC reader; the first DOC loads it', async () => {
    expect(await loadedAfter()).toEqual({ afterPdf: false, afterDoc: true, docError: 'corrupt_document' });
  });
});
