import { randomUUID } from 'node:crypto';
import type { ParseOptions } from './form.js';

export type TaskState = 'pending' | 'processing' | 'completed' | 'failed';

export interface TaskFile {
  /** The key of this file in `file_names` and `results`. */
  stem: string;
  name: string;
  /** The type detected from the bytes (`pdf`, `png`, `docx`, …). */
  suffix: string;
  data: Uint8Array;
}

export interface FakeTask {
  id: string;
  status: TaskState;
  backend: string;
  files: TaskFile[];
  options: ParseOptions;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  submitOrder: number;
  /** Set at submission when the fake was told to fail this task: it fails when it finishes. */
  failWith?: string;
  results?: Record<string, Record<string, unknown>>;
}

export interface TaskCounters {
  inFlight: number;
  maxInFlight: number;
  outstanding: number;
  maxOutstanding: number;
}

/**
 * MinerU's AsyncTaskManager, in memory like the original: a FIFO of pending tasks, at most
 * `maxConcurrent` processing, each taking `processingMs`. `forget()` is a process restart.
 */
export class TaskStore {
  private readonly tasks = new Map<string, FakeTask>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private nextOrder = 1;
  private pumpScheduled = false;

  constructor(
    private settings: { maxConcurrent: number; processingMs: number },
    private readonly counters: TaskCounters,
    /** Turns a finished task's files into its results; a throw fails the task with its message. */
    private readonly finish: (task: FakeTask) => Record<string, Record<string, unknown>>,
  ) {}

  configure(settings: Partial<{ maxConcurrent: number; processingMs: number }>): void {
    this.settings = { ...this.settings, ...settings };
    this.schedulePump();
  }

  settingsNow(): { maxConcurrent: number; processingMs: number } {
    return { ...this.settings };
  }

  submit(files: TaskFile[], options: ParseOptions, failWith?: string): FakeTask {
    const task: FakeTask = {
      id: randomUUID(),
      status: 'pending',
      backend: options.backend,
      files,
      options,
      createdAt: isoNow(),
      startedAt: null,
      completedAt: null,
      error: null,
      submitOrder: this.nextOrder++,
      failWith,
    };
    this.tasks.set(task.id, task);
    this.count();
    // MinerU's dispatcher picks tasks up after the submission has been answered: a fresh task is pending.
    this.schedulePump();
    return task;
  }

  get(id: string): FakeTask | undefined {
    return this.tasks.get(id);
  }

  /** MinerU's get_queued_ahead: pending tasks submitted earlier; 0 once the task left pending. */
  queuedAhead(task: FakeTask): number {
    if (task.status !== 'pending') return 0;
    let ahead = 0;
    for (const other of this.tasks.values()) if (other.status === 'pending' && other.submitOrder < task.submitOrder) ahead += 1;
    return ahead;
  }

  countByState(): Record<TaskState, number> {
    const counts: Record<TaskState, number> = { pending: 0, processing: 0, completed: 0, failed: 0 };
    for (const task of this.tasks.values()) counts[task.status] += 1;
    return counts;
  }

  /** Fails a task now, whatever its state (an error inside MinerU's parse). */
  fail(id: string, error: string): boolean {
    const task = this.tasks.get(id);
    if (!task) return false;
    this.stopTimer(id);
    task.status = 'failed';
    task.error = error;
    task.completedAt = isoNow();
    task.startedAt ??= task.completedAt;
    this.count();
    this.schedulePump();
    return true;
  }

  /** A restart: every task, queued or running, is gone. */
  forget(): void {
    for (const id of this.timers.keys()) this.stopTimer(id);
    this.tasks.clear();
    this.nextOrder = 1;
    this.count();
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    const pending = [...this.tasks.values()].filter((t) => t.status === 'pending').sort((a, b) => a.submitOrder - b.submitOrder);
    for (const task of pending) {
      if (this.countByState().processing >= this.settings.maxConcurrent) break;
      task.status = 'processing';
      task.startedAt = isoNow();
      this.count();
      const timer = setTimeout(() => this.complete(task), this.settings.processingMs);
      this.timers.set(task.id, timer);
    }
  }

  private complete(task: FakeTask): void {
    this.timers.delete(task.id);
    if (this.tasks.get(task.id) !== task || task.status !== 'processing') return;
    try {
      if (task.failWith !== undefined) throw new Error(task.failWith);
      task.results = this.finish(task);
      task.status = 'completed';
    } catch (err) {
      task.status = 'failed';
      task.error = err instanceof Error ? err.message : String(err);
    }
    task.completedAt = isoNow();
    this.count();
    this.pump();
  }

  private stopTimer(id: string): void {
    const timer = this.timers.get(id);
    if (timer) clearTimeout(timer);
    this.timers.delete(id);
  }

  private count(): void {
    const counts = this.countByState();
    this.counters.inFlight = counts.processing;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, counts.processing);
    this.counters.outstanding = counts.pending + counts.processing;
    this.counters.maxOutstanding = Math.max(this.counters.maxOutstanding, this.counters.outstanding);
  }
}

/** Python's `datetime.now(timezone.utc).isoformat()`: microseconds and `+00:00`. */
export function isoNow(): string {
  return new Date().toISOString().replace('Z', '000+00:00');
}
