/**
 * HTTP helpers for the security tests: every call can carry a tenant's API key, and nothing here
 * retries or hides a status, because the statuses are what these tests check.
 */
export interface UploadFile {
  name: string;
  data: Uint8Array;
  /** Multipart part content type (defaults to application/octet-stream); the server must ignore it. */
  type?: string;
}

export interface JobStatus {
  jobId: string;
  status: string;
  phase: string;
  error?: { code: string; message: string };
  result?: { packageId: string };
  source: { filename: string; mediaType: string; size: number; originalFilename?: string };
  createdAt: string;
  updatedAt: string;
}

export class TenantClient {
  constructor(
    readonly base: string,
    readonly key?: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.key ? { authorization: `Bearer ${this.key}`, ...extra } : extra;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${this.base}${path}`, { headers: this.headers(headers) });
  }

  /** `POST /api/files` with one file (field `file`) and optional form fields. */
  upload(file: UploadFile, fields: Record<string, string> = {}): Promise<Response> {
    return this.post('/api/files', [file], 'file', fields);
  }

  uploadBatch(files: UploadFile[], fields: Record<string, string> = {}): Promise<Response> {
    return this.post('/api/files/batch', files, 'files', fields);
  }

  private post(path: string, files: UploadFile[], field: string, fields: Record<string, string>): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const f of files) form.append(field, new Blob([f.data], { type: f.type ?? 'application/octet-stream' }), f.name);
    return fetch(`${this.base}${path}`, { method: 'POST', body: form, headers: this.headers() });
  }

  /** Uploads and returns the job id, failing loudly on anything but 202. */
  async submit(file: UploadFile, fields: Record<string, string> = {}): Promise<string> {
    const res = await this.upload(file, fields);
    const body = await res.text();
    if (res.status !== 202) throw new Error(`upload of ${file.name}: ${res.status} ${body}`);
    return (JSON.parse(body) as { jobId: string }).jobId;
  }

  async status(jobId: string): Promise<JobStatus> {
    const res = await this.get(`/api/files/job/${jobId}`);
    if (res.status !== 200) throw new Error(`status of ${jobId}: ${res.status} ${await res.text()}`);
    return (await res.json()) as JobStatus;
  }

  /** Polls until `done` or `failed`. */
  async terminal(jobId: string, timeoutMs = 60_000): Promise<JobStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status(jobId);
      if (status.status === 'done' || status.status === 'failed') return status;
      if (Date.now() > deadline) throw new Error(`job ${jobId} not terminal after ${timeoutMs} ms: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function errorCode(res: Response): Promise<string> {
  const body = (await res.json()) as { error?: { code?: string } };
  return body.error?.code ?? `no error code (status ${res.status})`;
}
