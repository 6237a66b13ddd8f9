import type { AppConfig, BatchCreated, EngineChoice, JobStatusView, ServedPackage } from './types.js';

/**
 * An error the API answered (`{error: {code, message}}`), or `network_error` when no answer came.
 * `retryAfterSeconds` is set from `Retry-After` (429, 503) so callers can wait as told.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

export interface UploadOptions {
  engine: EngineChoice;
  ocrLang: string;
}

/**
 * Same-origin calls to the API. The key, when there is one, goes in `Authorization` on every
 * call, assets included: that is why images are fetched as blobs rather than linked (an `<img>`
 * cannot send a header).
 */
export class ApiClient {
  constructor(private readonly apiKey: () => string | undefined) {}

  config(): Promise<AppConfig> {
    return this.json<AppConfig>('/app-config.json');
  }

  jobStatus(jobId: string, signal?: AbortSignal): Promise<JobStatusView> {
    return this.json<JobStatusView>(`/api/files/job/${encodeURIComponent(jobId)}`, { signal });
  }

  package(jobId: string): Promise<ServedPackage> {
    return this.json<ServedPackage>(`/api/files/job/${encodeURIComponent(jobId)}/package`);
  }

  async markdown(jobId: string): Promise<string> {
    return (await this.request(`/api/files/job/${encodeURIComponent(jobId)}/markdown`)).text();
  }

  /** An asset by the URL the package gives it; only its path is used, so it stays same-origin. */
  async asset(url: string): Promise<Blob> {
    return (await this.request(new URL(url, window.location.href).pathname)).blob();
  }

  /**
   * One multipart request for the whole batch. XMLHttpRequest rather than fetch: only it reports
   * how much of the body is sent, which is most of the wait for large files on a slow line.
   */
  uploadBatch(files: readonly File[], options: UploadOptions, onSent: (fraction: number) => void = () => undefined): Promise<BatchCreated> {
    const form = new FormData();
    // Fields before files: the server reads options while the files stream in.
    form.append('engine', options.engine);
    form.append('ocrLang', options.ocrLang);
    for (const file of files) form.append('files', file, file.name);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/files/batch');
      const key = this.apiKey();
      if (key) xhr.setRequestHeader('Authorization', `Bearer ${key}`);
      xhr.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable && event.total > 0) onSent(event.loaded / event.total);
      });
      xhr.addEventListener('error', () => reject(new ApiProblem(0, 'network_error', 'The server could not be reached.')));
      xhr.addEventListener('load', () => {
        const headers = new Headers();
        for (const name of ['Content-Type', 'Retry-After']) {
          const value = xhr.getResponseHeader(name);
          if (value !== null) headers.set(name, value);
        }
        const response = new Response(xhr.responseText, { status: xhr.status, statusText: xhr.statusText, headers });
        if (response.ok) response.json().then((body) => resolve(body as BatchCreated), reject);
        else problemOf(response).then(reject, reject);
      });
      xhr.send(form);
    });
  }

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await (await this.request(path, init)).json()) as T;
  }

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const key = this.apiKey();
    if (key) headers.set('Authorization', `Bearer ${key}`);
    let response: Response;
    try {
      response = await fetch(path, { ...init, headers, credentials: 'omit' });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiProblem(0, 'network_error', 'The server could not be reached.');
    }
    if (!response.ok) throw await problemOf(response);
    return response;
  }
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const retryAfter = Number(response.headers.get('Retry-After'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  const fallback = new ApiProblem(response.status, `http_${response.status}`, `The server answered ${response.status} ${response.statusText}.`, retryAfterSeconds);
  if (!(response.headers.get('Content-Type') ?? '').includes('json')) return fallback;
  // A body that says JSON but is not (a proxy's page) is answered like any non-JSON error.
  const body: unknown = await response.json().catch(() => undefined);
  const error = typeof body === 'object' && body !== null ? (body as { error?: { code?: unknown; message?: unknown } }).error : undefined;
  if (typeof error?.code !== 'string') return fallback;
  return new ApiProblem(response.status, error.code, typeof error.message === 'string' ? error.message : fallback.message, retryAfterSeconds);
}
