import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MessagePort } from 'node:worker_threads';
import { signalStarted } from './task-files.js';
import { DocumentError, parseDocument, parsePdfPages, planPdfDocument, type DocumentErrorCode, type ParsedDocument, type ParseInput, type ParseOptions, type PdfPlan, type PdfSlice } from '@readpack/parsers';

/** What a parser thread is asked: a whole document, a PDF's plan (whole, or page count and outline for slicing), or one slice of a PDF's pages. */
export type ParseRequest = { kind: 'document' } | { kind: 'pdf-plan'; sliceAbove: number } | { kind: 'pdf-slice'; from: number; to: number; firstPage?: number };

export type ParseResult = { kind: 'document'; document: ParsedDocument } | { kind: 'pdf-plan'; plan: PdfPlan } | { kind: 'pdf-slice'; slice: PdfSlice };

/**
 * Piscina task: runs in a worker thread (see parse-pool.ts). Errors crossing the thread boundary
 * lose their class and extra fields, so a DocumentError travels as data and is rebuilt there.
 */
export type ParseOutcome = { ok: true; result: ParseResult } | { ok: false; code: DocumentErrorCode; message: string };

export interface ParseTask {
  input: ParseInput;
  options: ParseOptions;
  request: ParseRequest;
  started?: MessagePort;
}

export default async function parseTask({ input, options, request, started }: ParseTask): Promise<ParseOutcome> {
  signalStarted(started);
  try {
    const result = await run(input, options, request);
    if (pagesOpened(result) >= COLLECT_AFTER_PAGES) collectGarbage();
    return { ok: true, result };
  } catch (error) {
    if (error instanceof DocumentError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/**
 * After a task that opened this many pages (each slice of a large PDF, and its plan, which loads
 * the whole page tree to count it), the thread's heap is collected before its next task. V8 lets a
 * thread's heap grow towards PARSE_MAX_HEAP_MB before a full collection, so a thread kept the
 * garbage of every slice it read: 2,000 pages in 200-page slices grew the parse pool by ~250 MB
 * where one slice needs ~150. A full collection costs milliseconds against the seconds a slice
 * takes; small documents (most uploads) never pay it.
 */
const COLLECT_AFTER_PAGES = 100;

function pagesOpened(result: ParseResult): number {
  switch (result.kind) {
    case 'document':
      return result.document.pages?.length ?? 0;
    case 'pdf-plan':
      return result.plan.kind === 'whole' ? (result.plan.document.pages?.length ?? 0) : result.plan.pages;
    case 'pdf-slice':
      return result.slice.pages.length;
  }
}

let fullCollection: (() => void) | undefined;

/**
 * V8's `gc()`, which Node exposes only with --expose-gc. The flag is process-wide but only contexts
 * created after it get `gc`: the one made here (jest-leak-detector does the same).
 */
function collectGarbage(): void {
  if (!fullCollection) {
    setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  fullCollection();
}

async function run(input: ParseInput, options: ParseOptions, request: ParseRequest): Promise<ParseResult> {
  switch (request.kind) {
    case 'document':
      return { kind: 'document', document: await parseDocument(input, options) };
    case 'pdf-plan':
      return { kind: 'pdf-plan', plan: await planPdfDocument(input, options, request.sliceAbove) };
    case 'pdf-slice':
      return { kind: 'pdf-slice', slice: await parsePdfPages(input, options, request) };
  }
}
