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
  /**
   * Slices have threads of their own, with a young generation of SLICE_YOUNG_GENERATION_MB:
   * a slice allocates pdfjs's operator lists page after page, and V8 lets a thread's young
   * generation grow to tens of MB of it; kept small, a consumer reading 200-page slices peaks
   * lower for about the same time. Documents keep V8's default (a small young generation made a
   * one-page DOCX 30–50 % slower).
   */
  private readonly sliceThreads: ThreadPool<Omit<ParseTask, 'started'>, ParseOutcome>;
  private readonly sliceGate: Gate;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number; slicesAtOnce?: number }) {
    const slicesAtOnce = options.slicesAtOnce ?? options.threads;
    this.threads = new ThreadPool('parse-task', options);
    this.sliceThreads = new ThreadPool('parse-task', { ...options, threads: slicesAtOnce, youngGenerationMb: SLICE_YOUNG_GENERATION_MB });
    this.sliceGate = new Gate(slicesAtOnce);
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
    const result = await this.sliceGate.run(() => this.run(input, options, { kind: 'pdf-slice', ...range }, this.sliceThreads));
    if (result.kind !== 'pdf-slice') throw new Error(`parser thread answered ${result.kind} to a slice request`);
    return result.slice;
  }

  /** Parser threads alive now (documents' and slices'). */
  get threadCount(): number {
    return this.threads.threadCount + this.sliceThreads.threadCount;
  }

  /** Ends the parser threads of each kind that has none busy (ThreadPool.releaseIdleThreads); whether any were ended. */
  async releaseIdleThreads(): Promise<boolean> {
    const [documents, slices] = await Promise.all([this.threads.releaseIdleThreads(), this.sliceThreads.releaseIdleThreads()]);
    return documents || slices;
  }

  async close(): Promise<void> {
    await Promise.all([this.threads.close(), this.sliceThreads.close()]);
  }

  private async run(input: ParseInput, options: ParseOptions, request: ParseRequest, threads = this.threads): Promise<ParseResult> {
    const outcome = await threads.run({ input, options, request });
    if (!outcome.ok) throw new PermanentFailure(outcome.code, outcome.message);
    return outcome.result;
  }
}

/**
 * Measured in one process reading five 200-page parts of the bench PDF in one thread, seven runs
 * each, interleaved: peak growth 141–154 MB in 5.5–7.4 s (mean 6.5) with V8's default, 127–137 MB
 * in 5.5–7.2 s (mean 6.3) with 16, 117–121 MB in 6.3–7.7 s (mean 7.1) with 8: 16 costs no time.
 */
const SLICE_YOUNG_GENERATION_MB = 16;

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
