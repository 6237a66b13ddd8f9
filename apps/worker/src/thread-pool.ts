import { Piscina } from 'piscina';
import { compiledSibling, runWithDeadline } from './task-files.js';

/**
 * CPU-heavy work (parsing, rendering) runs in worker threads, never on the consumer's event loop:
 * a long parse or a large page blocks a thread for seconds, and a blocked loop stops BullMQ's lock
 * renewal (false stalls, the same job running twice). The threads also bound memory (a task that
 * needs more than `maxHeapMb` kills its thread, not the consumer: `resource_limit`) and time
 * (`timeoutMs` from the moment the task starts: `timeout`).
 */
export class ThreadPool<Task extends object, Outcome> {
  private pool: Piscina;
  /** Tasks submitted and not settled: piscina's own counters include tasks of a pool being replaced. */
  private inFlight = 0;

  constructor(
    private readonly taskModule: string,
    private readonly options: { threads: number; maxHeapMb: number; timeoutMs: number; youngGenerationMb?: number },
  ) {
    this.pool = this.newPool();
  }

  async run(task: Task): Promise<Outcome> {
    this.inFlight += 1;
    try {
      return await runWithDeadline<Outcome>(this.pool, { ...task }, this.options.timeoutMs);
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Threads running now (a thread that finished its task stays until idleTimeout or releaseIdleThreads). */
  get threadCount(): number {
    return this.pool.threads.length;
  }

  /**
   * Ends the threads now if none has a task, rather than after `idleTimeout`: a thread keeps its
   * isolate and pdfjs (tens of MB) while idle, and work about to run on the main thread (a large
   * PDF's merge) would otherwise add its memory to theirs. A later task starts a thread again.
   * With a task in flight nothing happens. Returns whether the threads were ended.
   */
  async releaseIdleThreads(): Promise<boolean> {
    if (this.inFlight > 0 || this.pool.threads.length === 0) return false;
    const idle = this.pool;
    this.pool = this.newPool();
    await idle.destroy();
    return true;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private newPool(): Piscina {
    return new Piscina({
      filename: compiledSibling(this.taskModule),
      // No thread before the first task: an idle consumer (or a shared process whose stage gets
      // no work) holds no parser or renderer; the first task pays a thread's start-up instead.
      minThreads: 0,
      maxThreads: this.options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb, ...(this.options.youngGenerationMb === undefined ? {} : { maxYoungGenerationSizeMb: this.options.youngGenerationMb }) },
      // Node's default, made explicit: threads that write to S3 find the credentials of this
      // process's environment (the SDK's chain), also where `process.env` is not the OS's (Jest).
      env: process.env,
    });
  }
}
