import { MinerUError } from './errors.js';
import { parseRetryAfter } from './retry-after.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface MinerUResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body was JSON, else the text. */
  body: unknown;
}

export interface RequestOptions {
  body?: FormData;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Set for calls about a task we submitted: a 404 then means MinerU lost it. */
  taskId?: string;
}

/** Connection-level failures undici reports as `cause.code`; those that mean "no answer in time". */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * One HTTP exchange with MinerU, body included: the timeout covers reading the body too, because
 * a server that sends headers and then stalls is as stuck as one that never answers.
 */
export async function exchange(fetchImpl: FetchLike, url: string, method: string, options: RequestOptions): Promise<MinerUResponse> {
  const what = `MinerU ${method} ${new URL(url).pathname}`;
  options.signal?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onCallerAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const response = await fetchImpl(url, { method, body: options.body, signal: controller.signal });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: parseBody(text, response.headers) };
  } catch (err) {
    // The caller's own abort (a budget, a shutdown) wins: it carries the caller's reason.
    if (options.signal?.aborted) throw options.signal.reason;
    if (timedOut) {
      throw new MinerUError('timeout', `${what} did not answer within ${options.timeoutMs} ms`, { taskId: options.taskId, cause: err });
    }
    const code = errorCode(err);
    if (code !== undefined && TIMEOUT_CODES.has(code)) {
      throw new MinerUError('timeout', `${what} timed out (${code})`, { taskId: options.taskId, cause: err });
    }
    throw new MinerUError('unreachable', `${what} failed: ${code ?? describe(err)}`, { taskId: options.taskId, cause: err });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** The error a non-success status stands for (see MinerUErrorKind). */
export function errorForStatus(response: MinerUResponse, what: string, taskId?: string): MinerUError {
  const { status, body } = response;
  const detail = detailOf(body);
  const message = `${what} answered ${status}${detail ? `: ${detail}` : ''}`;
  const details = { status, body, taskId };
  if (status === 429 || status === 503) {
    return new MinerUError('rate_limited', message, { ...details, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) });
  }
  if (status >= 500) return new MinerUError('server_error', message, details);
  if (status === 408) return new MinerUError('timeout', message, details);
  if (status === 404 && taskId !== undefined) {
    return new MinerUError('task_lost', `MinerU does not know task ${taskId} (404${detail ? `: ${detail}` : ''}); it restarted, expired the task, or another replica answered`, details);
  }
  // 400 (invalid option, unsupported file type), 422 (FastAPI form validation), 401/403/404/413…:
  // asking again unchanged gets the same answer.
  return new MinerUError('bad_request', detail || message, details);
}

/**
 * MinerU's error text: FastAPI's `{"detail": "…"}`, its 422 `{"detail": [{loc, msg}, …]}`, or the
 * `{"error": "…"}` / `{"message": "…"}` some MinerU paths and proxies send.
 */
export function detailOf(body: unknown): string {
  if (typeof body === 'string') return body.trim().slice(0, 500);
  if (!isRecord(body)) return '';
  const detail = body.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        if (!isRecord(item)) return String(item);
        const loc = Array.isArray(item.loc) ? item.loc.join('.') : '';
        return `${loc ? `${loc}: ` : ''}${typeof item.msg === 'string' ? item.msg : JSON.stringify(item)}`;
      })
      .join('; ');
  }
  if (typeof body.error === 'string') return body.error;
  if (typeof body.message === 'string') return body.message;
  return '';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBody(text: string, headers: Headers): unknown {
  if (text === '') return null;
  const type = headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // A body that claims JSON and is not: keep the text so the error can show it.
      return text;
    }
  }
  return text;
}

function errorCode(err: unknown): string | undefined {
  for (let current: unknown = err, depth = 0; current && depth < 5; depth++) {
    if (isRecord(current) || current instanceof Error) {
      const record = current as unknown as Record<string, unknown>;
      if (typeof record.code === 'string') return record.code;
      // Happy-eyeballs connects fail with an AggregateError of per-address errors.
      if (Array.isArray(record.errors) && record.errors.length > 0) return errorCode(record.errors[0]);
      current = record.cause;
    } else {
      return undefined;
    }
  }
  return undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
