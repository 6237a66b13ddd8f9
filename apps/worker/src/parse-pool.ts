import type { ParsedDocument, ParseInput, ParseOptions, PdfPlan, PdfSlice } from '@readpack/parsers';
import { PermanentFailure } from './failures.js';
import type { ParseOutcome, ParseRequest, ParseResult, ParseTask } from './parse-task.js';
import { ThreadPool } from './thread-pool.js';

/** Parsers in worker threads (see ThreadPool); a document error comes back as data and becomes a PermanentFailure with its code. */
export class ParsePool {
  private readonly threads: ThreadPool<Omit<ParseTask, 'started'>, ParseOutcome>;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number }) {
    this.threads = new ThreadPool('parse-task', options);
  }

  async parse(input: ParseInput, options: ParseOptions = {}): Promise<ParsedDocument> {
    const result = await this.run(input, options, { kind: 'document' });
    if (result.kind !== 'document') throw new Error(`parser thread answered ${result.kind} to a document request`);
    return result.document;
  }

  /** A PDF parsed whole when it has at most `sliceAbove` pages, else its page count and outline (see planPdf). */
  async planPdf(input: ParseInput, options: ParseOptions, sliceAbove: number): Promise<PdfPlan> {
    const result = await this.run(input, options, { kind: 'pdf-plan', sliceAbove });
    if (result.kind !== 'pdf-plan') throw new Error(`parser thread answered ${result.kind} to a plan request`);
    return result.plan;
  }

  /** Pages `from` (inclusive) to `to` (exclusive) of a PDF, before the document-wide steps. */
  async parsePdfSlice(input: ParseInput, options: ParseOptions, range: { from: number; to: number }): Promise<PdfSlice> {
    const result = await this.run(input, options, { kind: 'pdf-slice', ...range });
    if (result.kind !== 'pdf-slice') throw new Error(`parser thread answered ${result.kind} to a slice request`);
    return result.slice;
  }

  close(): Promise<void> {
    return this.threads.close();
  }

  private async run(input: ParseInput, options: ParseOptions, request: ParseRequest): Promise<ParseResult> {
    const outcome = await this.threads.run({ input, options, request });
    if (!outcome.ok) throw new PermanentFailure(outcome.code, outcome.message);
    return outcome.result;
  }
}
