import type { ParsedDocument, ParseInput, ParseOptions } from '@readpack/parsers';
import { PermanentFailure } from './failures.js';
import type { ParseOutcome, ParseTask } from './parse-task.js';
import { ThreadPool } from './thread-pool.js';

/** Parsers in worker threads (see ThreadPool); a document error comes back as data and becomes a PermanentFailure with its code. */
export class ParsePool {
  private readonly threads: ThreadPool<Omit<ParseTask, 'started'>, ParseOutcome>;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number }) {
    this.threads = new ThreadPool('parse-task', options);
  }

  async parse(input: ParseInput, options: ParseOptions = {}): Promise<ParsedDocument> {
    const outcome = await this.threads.run({ input, options });
    if (!outcome.ok) throw new PermanentFailure(outcome.code, outcome.message);
    return outcome.document;
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}
