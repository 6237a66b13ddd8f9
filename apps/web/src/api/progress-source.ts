import { ApiProblem, type ApiClient } from './client.js';
import type { JobStatusView } from './types.js';

/**
 * Where a job's live status comes from: the job's Server-Sent Events stream
 * (`GET /api/files/job/:id/events`) where the browser can open it, else polling
 * `GET /api/files/job/:id`. Views only see this interface.
 */
export interface ProgressSource {
  /**
   * Calls `onUpdate` with each new status until the job is `done` or `failed`, and `onProblem`
   * when the status cannot be read (it keeps trying unless the problem is final). Returns a
   * function that stops watching.
   */
  watch(jobId: string, onUpdate: (view: JobStatusView) => void, onProblem: (problem: ApiProblem) => void): () => void;
}

export interface PollingOptions {
  /** First delay, and the delay after every change. */
  initialMs: number;
  /** The delay grows while nothing changes, up to this. */
  maxMs: number;
  /** Growth factor per unchanged poll. */
  backoff: number;
}

const DEFAULT_POLLING: PollingOptions = { initialMs: 500, maxMs: 4_000, backoff: 1.5 };

/** Problems that will not go away by asking again: stop polling. */
const FINAL_CODES: ReadonlySet<string> = new Set(['job_not_found', 'auth_required', 'invalid_api_key']);

export function isTerminal(view: JobStatusView): boolean {
  return view.status === 'done' || view.status === 'failed';
}

/**
 * Polls quickly while a job moves and backs off while it waits in a queue, so a page left open
 * on a long batch does not hammer the API; `Retry-After` on 429/503 is obeyed.
 */
export class PollingProgressSource implements ProgressSource {
  constructor(
    private readonly client: ApiClient,
    private readonly options: PollingOptions = DEFAULT_POLLING,
  ) {}

  watch(jobId: string, onUpdate: (view: JobStatusView) => void, onProblem: (problem: ApiProblem) => void): () => void {
    const controller = new AbortController();
    let timer: number | undefined;
    let delay = this.options.initialMs;
    let last = '';

    const schedule = (ms: number) => {
      if (!controller.signal.aborted) timer = window.setTimeout(poll, ms);
    };
    const poll = async () => {
      try {
        const view = await this.client.jobStatus(jobId, controller.signal);
        const fingerprint = JSON.stringify([view.status, view.phase, view.progress, view.error]);
        if (fingerprint !== last) {
          last = fingerprint;
          delay = this.options.initialMs;
          onUpdate(view);
        } else {
          delay = Math.min(this.options.maxMs, delay * this.options.backoff);
        }
        if (!isTerminal(view)) schedule(delay);
      } catch (error) {
        if (controller.signal.aborted) return; // stopped on purpose: nothing to report
        const problem = error instanceof ApiProblem ? error : new ApiProblem(0, 'network_error', String(error));
        onProblem(problem);
        if (FINAL_CODES.has(problem.code)) return;
        delay = Math.min(this.options.maxMs, delay * this.options.backoff);
        schedule(problem.retryAfterSeconds !== undefined ? problem.retryAfterSeconds * 1000 : delay);
      }
    };

    schedule(0);
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }
}

/**
 * Follows the job's event stream with the browser's EventSource, which reconnects by itself and
 * resumes with Last-Event-ID. When the stream cannot be had (an old server answering 404 for the
 * route, 503 `too_many_streams`, a proxy that drops it before any event), it hands the job over
 * to polling, so a view always gets its updates one way or the other.
 */
export class EventSourceProgressSource implements ProgressSource {
  constructor(private readonly fallback: ProgressSource) {}

  watch(jobId: string, onUpdate: (view: JobStatusView) => void, onProblem: (problem: ApiProblem) => void): () => void {
    const source = new EventSource(`/api/files/job/${encodeURIComponent(jobId)}/events`);
    let stopFallback: (() => void) | undefined;
    let received = false;
    source.addEventListener('status', (event) => {
      received = true;
      const view = JSON.parse((event as MessageEvent<string>).data) as JobStatusView;
      onUpdate(view);
      // The server ends the stream after the terminal event; closing stops EventSource reconnecting.
      if (isTerminal(view)) source.close();
    });
    source.addEventListener('error', () => {
      // Once events flowed, EventSource reconnects on its own (with Last-Event-ID); before the
      // first one, an error means the stream is not available here: poll instead.
      if (received && source.readyState !== EventSource.CLOSED) return;
      source.close();
      if (!stopFallback) stopFallback = this.fallback.watch(jobId, onUpdate, onProblem);
    });
    return () => {
      source.close();
      stopFallback?.();
    };
  }
}

/**
 * The one place that picks the source. EventSource cannot send an `Authorization` header, so with
 * an API key the app polls; without one (same-origin, single-tenant) it streams.
 */
export function createProgressSource(client: ApiClient, apiKey: () => string | undefined = () => undefined): ProgressSource {
  const polling = new PollingProgressSource(client);
  if (typeof EventSource === 'undefined') return polling;
  const streaming = new EventSourceProgressSource(polling);
  // Chosen per job: the key can be entered after the page loaded.
  return { watch: (jobId, onUpdate, onProblem) => (apiKey() ? polling : streaming).watch(jobId, onUpdate, onProblem) };
}
