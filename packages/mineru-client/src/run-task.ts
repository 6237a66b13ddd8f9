import { setTimeout as sleep } from 'node:timers/promises';
import type { MinerUClient, MinerUFile, MinerUResult, SubmitOptions } from './client.js';
import { MinerUError } from './errors.js';
import type { MinerUTaskStatus } from './wire.js';

export interface RunTaskOptions {
  file: MinerUFile;
  options?: SubmitOptions;
  /**
   * A MinerU task this job already submitted (read from the job record): poll it instead of
   * submitting a second copy. Set when a consumer takes over a job another one started.
   */
  existingTaskId?: string;
  /**
   * Called with every task id this run submits, before the first poll. Persist it here: a
   * consumer that dies after this resumes the same MinerU task. A throw stops the run.
   */
  onSubmitted(taskId: string): Promise<void> | void;
  /** Called with each status seen while polling (progress, heartbeats). */
  onStatus?(status: MinerUTaskStatus): Promise<void> | void;
  /** Total time for this run, submissions and polls included. */
  budgetMs: number;
  /** First wait between polls; each wait grows ×1.5 up to `maxPollIntervalMs`. */
  pollIntervalMs: number;
  /** Default: 10 × `pollIntervalMs`. */
  maxPollIntervalMs?: number;
  /** How many times a task MinerU lost (404) is submitted again before giving up. */
  maxResubmits: number;
  signal?: AbortSignal;
}

export interface RunTaskOutcome {
  taskId: string;
  result: MinerUResult;
  /** Tasks this run submitted: 0 when it only resumed `existingTaskId`. */
  submissions: number;
}

/**
 * Drives one document through MinerU: submit (or resume), poll with backoff, fetch the result.
 *
 * The split with the queue: this function handles what only it can — a task MinerU forgot is
 * submitted again (bounded by `maxResubmits`), and the total budget. Everything transient
 * (`rate_limited`, `server_error`, `timeout`, `unreachable`) is thrown at the first occurrence,
 * so the queue's retry, backoff and rate limiter decide when to try again; the next attempt
 * passes the persisted task id as `existingTaskId` and resumes polling without a second upload.
 * `bad_request` and `task_failed` are thrown too and are permanent.
 */
export async function runTask(client: MinerUClient, run: RunTaskOptions): Promise<RunTaskOutcome> {
  run.signal?.throwIfAborted();
  const budget = new AbortController();
  let lastState = 'not submitted';
  let currentTaskId = run.existingTaskId;
  const budgetTimer = setTimeout(() => {
    budget.abort(
      new MinerUError('timeout', `MinerU task ${currentTaskId ?? '(none)'} did not complete within the ${run.budgetMs} ms budget (last status: ${lastState})`, {
        taskId: currentTaskId,
        budgetExhausted: true,
      }),
    );
  }, run.budgetMs);
  const signal = run.signal ? AbortSignal.any([run.signal, budget.signal]) : budget.signal;
  const call = { signal };
  const maxInterval = run.maxPollIntervalMs ?? run.pollIntervalMs * 10;
  let submissions = 0;

  const submit = async (): Promise<string> => {
    const task = await client.submit(run.file, run.options, call);
    submissions += 1;
    currentTaskId = task.task_id;
    lastState = task.status;
    await run.onSubmitted(task.task_id);
    signal.throwIfAborted();
    return task.task_id;
  };

  try {
    let taskId = currentTaskId ?? (await submit());
    let resubmits = 0;
    let interval = run.pollIntervalMs;
    for (;;) {
      let status: MinerUTaskStatus;
      try {
        status = await client.status(taskId, call);
      } catch (err) {
        if (!(err instanceof MinerUError) || err.kind !== 'task_lost') throw err;
        if (resubmits >= run.maxResubmits) {
          throw new MinerUError('task_lost', `${err.message}; gave up after ${resubmits} resubmission(s)`, { taskId, status: err.status, cause: err });
        }
        resubmits += 1;
        taskId = await submit();
        interval = run.pollIntervalMs;
        continue;
      }
      lastState = status.status;
      await run.onStatus?.(status);
      if (status.status === 'failed') {
        throw new MinerUError('task_failed', status.error ?? 'MinerU reported the task as failed', { taskId });
      }
      if (status.status === 'completed') {
        const outcome = await client.result(taskId, call);
        if (outcome.state === 'completed') return { taskId, result: outcome.result, submissions };
        if (outcome.state === 'failed') throw new MinerUError('task_failed', outcome.error, { taskId });
        // A status/result race (completed then not ready) cannot happen in MinerU; poll again if it does.
      }
      await sleep(interval, undefined, { signal });
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  } catch (err) {
    // Aborts surface as the abort's reason: the budget's MinerUError or the caller's own reason.
    if (signal.aborted) throw signal.reason;
    throw err;
  } finally {
    clearTimeout(budgetTimer);
  }
}
