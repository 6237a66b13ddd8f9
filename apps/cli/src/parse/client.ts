import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';

/** The parts of the status document (`GET /api/files/job/:id`) the CLI shows. */
export interface JobStatus {
  jobId: string;
  status: 'queued' | 'processing' | 'done' | 'failed';
  phase: string;
  progress: { done: number; total: number };
  error?: { code: string; message: string };
}

/** An error answer of the API: `{ error: { code, message } }`, with the HTTP status. */
export class ApiAnswerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  server: string;
  key?: string | undefined;
}

/** A thin client of Readpack's HTTP API (the routes in the README's "HTTP API" table). */
export class ReadpackClient {
  private readonly base: string;

  constructor(private readonly options: ClientOptions) {
    this.base = options.server.replace(/\/+$/, '');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.options.key ? { authorization: `Bearer ${this.options.key}` } : {}), ...extra };
  }

  async upload(path: string, fields: Record<string, string>): Promise<{ jobId: string; deduplicated: boolean }> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    form.set('file', await openAsBlob(path), basename(path));
    const res = await fetch(`${this.base}/api/files`, { method: 'POST', body: form, headers: this.headers() });
    const body = await answer<{ jobId: string; deduplicated: boolean }>(res);
    return body;
  }

  async status(jobId: string): Promise<JobStatus> {
    return answer<JobStatus>(await fetch(`${this.base}/api/files/job/${encodeURIComponent(jobId)}`, { headers: this.headers() }));
  }

  async package(jobId: string): Promise<string> {
    return text(await fetch(`${this.base}/api/files/job/${encodeURIComponent(jobId)}/package`, { headers: this.headers() }));
  }

  async markdown(jobId: string): Promise<string> {
    return text(await fetch(`${this.base}/api/files/job/${encodeURIComponent(jobId)}/markdown`, { headers: this.headers() }));
  }

  /** The job's server-sent events, or undefined when this server has no event stream for it. */
  async events(jobId: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    const res = await fetch(`${this.base}/api/files/job/${encodeURIComponent(jobId)}/events`, { headers: this.headers({ accept: 'text/event-stream' }), signal });
    if (res.ok && res.body && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res.body;
    await res.body?.cancel();
    // 503: the server follows as many streams as it will (too_many_streams), or Redis is away: polling copes with both.
    if (res.status === 404 || res.status === 405 || res.status === 406 || res.status === 503 || res.ok) return undefined;
    throw await errorOf(res);
  }
}

async function errorOf(res: Response): Promise<ApiAnswerError> {
  const raw = await res.text();
  try {
    const parsed = JSON.parse(raw) as { error?: { code?: string; message?: string } };
    if (parsed.error?.code) return new ApiAnswerError(res.status, parsed.error.code, parsed.error.message ?? parsed.error.code);
  } catch {
    // Not our JSON error body (a proxy's page, say): report the status and the start of the body.
  }
  return new ApiAnswerError(res.status, `http_${res.status}`, `HTTP ${res.status}: ${raw.slice(0, 200)}`);
}

async function answer<T>(res: Response): Promise<T> {
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

async function text(res: Response): Promise<string> {
  if (!res.ok) throw await errorOf(res);
  return res.text();
}
