import { PermanentFailure } from './failures.js';
import type { RenderedPageRefs, RenderOutcome, RenderTask } from './render-task.js';
import { ThreadPool } from './thread-pool.js';

/**
 * Page rendering in worker threads (see ThreadPool): pdfjs renders on the thread that calls it.
 * Each thread keeps its last PDF open, so the pages of one document are not parsed again and again.
 */
export class RenderPool {
  private readonly threads: ThreadPool<Omit<RenderTask, 'started'>, RenderOutcome>;

  constructor(options: { threads: number; maxHeapMb: number; timeoutMs: number }) {
    this.threads = new ThreadPool('render-task', options);
  }

  async render(task: Omit<RenderTask, 'started'>): Promise<RenderedPageRefs> {
    const outcome = await this.threads.run(task);
    if (!outcome.ok) throw new PermanentFailure(outcome.code, outcome.message);
    return outcome.refs;
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}
