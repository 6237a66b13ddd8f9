import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A large PDF split once into files of its slices' pages, with qpdf (Debian package `qpdf`).
 *
 * Why: pdfjs, asked for any page, first fetches every kid of the root page tree (a prefetch for
 * flat trees), so opening the PDF costs the whole document: ~0.5 s for the 2,000-page bench PDF,
 * ~2.7 s for 10,000 pages, paid again by every slice. qpdf's `--split-pages` writes all the parts
 * in one pass (~0.9 s of CPU for 2,000 pages, ~5.5 s for 10,000), and each slice then opens a file
 * of its own pages only. qpdf rather than pdf-lib (already a dependency): pdf-lib parses every
 * object of the file in JavaScript (seconds and hundreds of MB for a 40 MB PDF), qpdf copies only
 * what each part's pages reference, inherited page attributes included.
 */

/** Why a PDF was not split: the slices then open the whole document, as before qpdf. */
export type SplitFallback = 'qpdf_missing' | 'qpdf_failed' | 'part_count_mismatch';

export type SplitOutcome = { kind: 'split'; files: string[] } | { kind: 'unsplit'; reason: SplitFallback; detail: string };

/** qpdf's exit codes: 0 done, 3 done with warnings (a repaired cross-reference table, say); 2 failed. */
const QPDF_DONE = new Set([0, 3]);

/**
 * Splits the PDF at `path` into ceil(pages / pagesPerPart) files of `pagesPerPart` pages each (the
 * last shorter) and runs `use` on their paths in page order; the files are deleted afterwards.
 * A machine without qpdf, a file qpdf cannot read (pdfjs may still: it repairs more), or a part
 * count that disagrees with pdfjs's page count, runs `use` on `unsplit` with the reason.
 */
export async function withPdfParts<T>(
  path: string,
  pages: number,
  pagesPerPart: number,
  options: { qpdf: string; timeoutMs: number },
  use: (outcome: SplitOutcome) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'readpack-split-'));
  try {
    const run = await runQpdf(options.qpdf, ['--split-pages=' + String(pagesPerPart), path, join(dir, 'part-%d.pdf')], options.timeoutMs);
    if (run.kind === 'missing') return await use({ kind: 'unsplit', reason: 'qpdf_missing', detail: `${options.qpdf} is not installed (Debian package qpdf)` });
    if (run.code === null || !QPDF_DONE.has(run.code)) return await use({ kind: 'unsplit', reason: 'qpdf_failed', detail: `qpdf exited with ${run.code ?? run.signal ?? 'nothing'}: ${run.stderr.slice(-500)}` });
    // qpdf names the parts by their zero-padded page range, all of the same width: name order is page order.
    const files = (await readdir(dir)).filter((name) => name.endsWith('.pdf')).sort().map((name) => join(dir, name));
    const expected = Math.ceil(pages / pagesPerPart);
    if (files.length !== expected) return await use({ kind: 'unsplit', reason: 'part_count_mismatch', detail: `qpdf wrote ${files.length} parts of ${pagesPerPart} pages for ${pages} pages (expected ${expected})` });
    return await use({ kind: 'split', files });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type QpdfRun = { kind: 'missing' } | { kind: 'ran'; code: number | null; signal: NodeJS.Signals | null; stderr: string };

function runQpdf(qpdf: string, args: string[], timeoutMs: number): Promise<QpdfRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(qpdf, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      // The end is what says why it failed; a repaired file can warn about every object.
      stderr = (stderr + chunk).slice(-4_000);
    });
    child.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve({ kind: 'missing' }) : reject(error)));
    child.once('close', (code, signal) => resolve({ kind: 'ran', code, signal, stderr }));
  });
}
