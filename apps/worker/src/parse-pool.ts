import { Piscina } from 'piscina';
import { DocumentError, type ParsedDocument, type ParseInput, type ParseOptions } from '@readpack/parsers';
import type { ParseOutcome, ParseTask } from './parse-task.js';
import { compiledSibling, runWithDeadline } from './task-files.js';

/**
 * Parsers run in worker threads, never on the consumer's event loop: a 117-page PDF or a large
 * spreadsheet blocks a thread for seconds, and a blocked loop stops BullMQ's lock renewal (false
 * stalls, the same job running twice). The threads also bound memory (a parse that needs more
 * than `maxHeapMb` kills its thread, not the consumer) and time (`timeoutMs` aborts the task).
 */
export class ParsePool {
  private readonly pool: Piscina;
  private readonly timeoutMs: number;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number }) {
    this.timeoutMs = options.timeoutMs;
    this.pool = new Piscina({
      filename: compiledSibling('parse-task'),
      minThreads: 1,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
  }

  async parse(input: ParseInput, options: ParseOptions = {}): Promise<ParsedDocument> {
    const task: Omit<ParseTask, 'started'> = { input, options };
    const outcome = await runWithDeadline<ParseOutcome>(this.pool, task, this.timeoutMs);
    if (!outcome.ok) throw new DocumentError(outcome.code, outcome.message);
    return outcome.document;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
