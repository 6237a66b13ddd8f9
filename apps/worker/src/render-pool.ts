import { Piscina } from 'piscina';
import { PermanentFailure } from './failures.js';
import { compiledSibling, runWithDeadline } from './task-files.js';
import type { RenderedPageRefs, RenderOutcome, RenderTask } from './render-task.js';

/**
 * Page rendering in worker threads: pdfjs renders on the thread that calls it, and a large page
 * can take seconds — on the consumer's event loop that would starve BullMQ's lock renewal. Each
 * thread keeps its last PDF open, so the pages of one document are not parsed again and again.
 */
export class RenderPool {
  private readonly pool: Piscina;
  private readonly timeoutMs: number;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number }) {
    this.timeoutMs = options.timeoutMs;
    this.pool = new Piscina({
      filename: compiledSibling('render-task'),
      minThreads: 1,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    });
  }

  async render(task: RenderTask): Promise<RenderedPageRefs> {
    const outcome = await runWithDeadline<RenderOutcome>(this.pool, { ...task }, this.timeoutMs);
    if (!outcome.ok) throw new PermanentFailure(outcome.code, outcome.message);
    return outcome.refs;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
