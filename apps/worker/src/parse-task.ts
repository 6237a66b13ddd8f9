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
    return { ok: true, result: await run(input, options, request) };
  } catch (error) {
    if (error instanceof DocumentError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
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
