import type { MessagePort } from 'node:worker_threads';
import { signalStarted } from './task-files.js';
import { DocumentError, parseDocument, type DocumentErrorCode, type ParsedDocument, type ParseInput, type ParseOptions } from '@readpack/parsers';

/**
 * Piscina task: runs in a worker thread (see parse-pool.ts). Errors crossing the thread boundary
 * lose their class and extra fields, so a DocumentError travels as data and is rebuilt there.
 */
export type ParseOutcome = { ok: true; document: ParsedDocument } | { ok: false; code: DocumentErrorCode; message: string };

export interface ParseTask {
  input: ParseInput;
  options: ParseOptions;
  started?: MessagePort;
}

export default async function parseTask({ input, options, started }: ParseTask): Promise<ParseOutcome> {
  signalStarted(started);
  try {
    return { ok: true, document: await parseDocument(input, options) };
  } catch (error) {
    if (error instanceof DocumentError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
