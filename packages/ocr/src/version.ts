import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { OcrError, errorMessage } from './errors.js';

/** The tesseract.js that actually runs, for a package's `origin` (read from its package.json). */
export const TESSERACT_VERSION: string = (createRequire(import.meta.url)('tesseract.js/package.json') as { version: string }).version;

let cachedVersion: string | undefined;

/**
 * `tesseract --version`'s own number (`5.3.0`), for a page's origin; throws `worker_failed` when
 * the executable is missing.
 */
export function nativeTesseractVersion(command = 'tesseract'): string {
  if (command === 'tesseract' && cachedVersion) return cachedVersion;
  const run = spawnSync(command, ['--version'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    throw new OcrError('worker_failed', `native tesseract is not available (${run.error ? errorMessage(run.error) : `exit ${run.status}`}): apt-get install tesseract-ocr`, { cause: run.error });
  }
  const match = /tesseract\s+v?(\d+\.\d+\.\d+\S*)/i.exec(`${run.stdout}${run.stderr}`);
  if (!match) throw new OcrError('worker_failed', 'native tesseract did not report a version');
  if (command === 'tesseract') cachedVersion = match[1]!;
  return match[1]!;
}
