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
  private readonly pool: Piscina;

  constructor(
    taskModule: string,
    private readonly options: { threads: number; maxHeapMb: number; timeoutMs: number },
  ) {
    this.pool = new Piscina({
      filename: compiledSibling(taskModule),
      // No thread before the first task: an idle consumer (or a shared process whose stage gets
      // no work) holds no parser or renderer; the first task pays a thread's start-up instead.
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
      // Node's default, made explicit: threads that write to S3 find the credentials of this
      // process's environment (the SDK's chain), also where `process.env` is not the OS's (Jest).
      env: process.env,
    });
  }

  run(task: Task): Promise<Outcome> {
    return runWithDeadline<Outcome>(this.pool, { ...task }, this.options.timeoutMs);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
