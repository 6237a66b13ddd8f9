import type { ParsedDocument, ParseInput, ParseOptions, PdfPlan, PdfSlice } from '@readpack/parsers';
import { PermanentFailure } from './failures.js';
import type { ParseOutcome, ParseRequest, ParseResult, ParseTask } from './parse-task.js';
import { ThreadPool } from './thread-pool.js';

/**
 * Parsers in worker threads (see ThreadPool); a document error comes back as data and becomes a
 * PermanentFailure with its code. Slices of large PDFs are read `slicesAtOnce` at a time however
 * many the consumer holds (the others wait here): each costs a parser thread's pdfjs and the PDF's
 * bytes, and a consumer's memory is to be bounded by its slice. More extract consumers, not more
 * slices per consumer, read a large document faster.
 */
export class ParsePool {
  private readonly threads: ThreadPool<Omit<ParseTask, 'started'>, ParseOutcome>;
  private readonly sliceGate: Gate;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number; slicesAtOnce?: number }) {
    this.threads = new ThreadPool('parse-task', options);
    this.sliceGate = new Gate(options.slicesAtOnce ?? options.threads);
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
  async parsePdfSlice(input: ParseInput, options: ParseOptions, range: { from: number; to: number; firstPage?: number }): Promise<PdfSlice> {
    const result = await this.sliceGate.run(() => this.run(input, options, { kind: 'pdf-slice', ...range }));
    if (result.kind !== 'pdf-slice') throw new Error(`parser thread answered ${result.kind} to a slice request`);
    return result.slice;
  }

  /** Parser threads alive now. */
  get threadCount(): number {
    return this.threads.threadCount;
  }

  /** Ends the parser threads if none is busy (ThreadPool.releaseIdleThreads). */
  releaseIdleThreads(): Promise<boolean> {
    return this.threads.releaseIdleThreads();
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

/** At most `size` tasks at once; the others wait in arrival order. */
class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    while (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active += 1;
    try {
      return await task();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}
