import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { classifyPdfOpenError } from '@readpack/media';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { RenderError } from './errors.js';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type NapiCanvasModule = typeof import('@napi-rs/canvas');

const require = createRequire(import.meta.url);
// The one installed pdfjs-dist (shared with pdf-parse); its assets and its @napi-rs/canvas are
// resolved from there, never from a copy of our own.
const pdfjsRoot = dirname(require.resolve('pdfjs-dist/package.json'));

/**
 * Filesystem folders with a trailing separator (pdfjs appends file names). Without the CMaps, CJK
 * text in predefined-CMap fonts draws nothing, silently; without the standard fonts, non-embedded
 * Helvetica & co. fall back to whatever the canvas has; wasm decodes JPEG 2000 images and ICC colours.
 */
const assets = {
  cMapUrl: join(pdfjsRoot, 'cmaps') + sep,
  cMapPacked: true,
  standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + sep,
  wasmUrl: join(pdfjsRoot, 'wasm') + sep,
  iccUrl: join(pdfjsRoot, 'iccs') + sep,
};

let pdfjsPromise: Promise<Pdfjs> | undefined;

/** Loaded on first use: importing pdfjs costs ~100 ms that image-only callers never need. */
export function loadPdfjs(): Promise<Pdfjs> {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

let canvasModule: NapiCanvasModule | undefined;

/** The @napi-rs/canvas copy pdfjs draws with (fonts registered on another copy would not be seen). */
export function pdfjsCanvasModule(): NapiCanvasModule {
  canvasModule ??= createRequire(join(pdfjsRoot, 'package.json'))('@napi-rs/canvas') as NapiCanvasModule;
  return canvasModule;
}

export interface OpenPdfInput {
  path?: string;
  data?: Uint8Array;
  password?: string;
}

async function readSource(input: OpenPdfInput): Promise<Uint8Array> {
  if (input.data !== undefined) {
    // pdfjs transfers (detaches) the buffer it is given: the caller keeps its own bytes.
    return new Uint8Array(input.data);
  }
  if (input.path !== undefined) {
    const bytes = await readFile(input.path);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  throw new TypeError('give the PDF as `path` or `data`');
}

function toRenderError(err: unknown, passwordGiven: boolean): unknown {
  const failure = classifyPdfOpenError(err, passwordGiven);
  return failure ? new RenderError(failure.code, failure.message, { cause: err }) : err;
}

export async function openPdfDocument(input: OpenPdfInput): Promise<PDFDocumentProxy> {
  const data = await readSource(input);
  if (data.length === 0) throw new RenderError('corrupt_document', 'the PDF is empty (0 bytes)');
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    data,
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...assets,
    isEvalSupported: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return await task.promise;
  } catch (err) {
    // Tear-down of a document that never opened: the error that matters is the one below.
    await task.destroy().catch(() => undefined);
    throw toRenderError(err, input.password !== undefined && input.password !== '');
  }
}
