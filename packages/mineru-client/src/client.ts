import { MinerUError } from './errors.js';
import { errorForStatus, exchange, isRecord, type FetchLike, type MinerUResponse } from './http.js';
import type {
  MinerUBackend,
  MinerUContentItem,
  MinerUHealth,
  MinerUParseMethod,
  MinerUTaskState,
  MinerUTaskStatus,
  MinerUWireFileResult,
} from './wire.js';

export interface MinerUClientOptions {
  /** Where `mineru-api` listens, e.g. `http://mineru:8000` (a path prefix behind a proxy is kept). */
  baseUrl: string;
  /** Longest wait for one HTTP exchange, body included. */
  requestTimeoutMs: number;
  fetch?: FetchLike;
}

export interface MinerUFile {
  name: string;
  data: Uint8Array;
}

/** Options MinerU applies to the parse; unset ones take MinerU's defaults. */
export interface SubmitOptions {
  /** OCR languages; MinerU's default is `["ch"]`. */
  langList?: string[];
  /** MinerU's default is `hybrid-engine`. */
  backend?: MinerUBackend;
  parseMethod?: MinerUParseMethod;
  formulaEnable?: boolean;
  tableEnable?: boolean;
  /** First page to parse, 0-based. MinerU crops the PDF first, so result `page_idx` 0 is this page. */
  startPageId?: number;
  /** Last page to parse, 0-based, inclusive. */
  endPageId?: number;
  /** Also return middle_json (per-page sizes and every span; large). Default false. */
  returnMiddleJson?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** One file's result, with the JSON-in-a-string fields parsed. */
export interface MinerUResult {
  backend: string;
  version: string;
  /** The file's key in `results`: MinerU's normalized stem of the uploaded name. */
  stem: string;
  markdown: string | null;
  contentList: MinerUContentItem[] | null;
  middleJson: unknown;
  /** Bare image name → data URI, as MinerU sent it. */
  images: Record<string, string>;
}

export type MinerUResultState =
  | { state: 'pending' | 'processing'; task: MinerUTaskStatus }
  | { state: 'failed'; error: string; task: MinerUTaskStatus }
  | { state: 'completed'; result: MinerUResult };

const TASK_STATES: readonly MinerUTaskState[] = ['pending', 'processing', 'completed', 'failed'];

/**
 * MinerU's asynchronous task API (`mineru-api`, protocol 2). One call is one HTTP exchange: this
 * class never retries; failures are `MinerUError`s classified for the caller's retry policy.
 */
export class MinerUClient {
  private readonly baseUrl: string;
  private readonly requestTimeoutMs: number;
  private readonly fetchImpl: FetchLike;

  constructor(options: MinerUClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  async health(call: CallOptions = {}): Promise<MinerUHealth> {
    const response = await this.call('GET', '/health', call);
    if (response.status !== 200) throw errorForStatus(response, 'MinerU GET /health');
    const body = response.body;
    if (!isRecord(body) || typeof body.protocol_version !== 'number' || typeof body.status !== 'string') {
      throw protocolError('GET /health', body);
    }
    return body as unknown as MinerUHealth;
  }

  /** `POST /tasks`: MinerU stores the upload and answers at once with the task (`202`). */
  async submit(file: MinerUFile, options: SubmitOptions = {}, call: CallOptions = {}): Promise<MinerUTaskStatus> {
    const response = await this.call('POST', '/tasks', { ...call, body: submitForm(file, options) });
    if (response.status !== 202 && response.status !== 200) throw errorForStatus(response, 'MinerU POST /tasks');
    return asTaskStatus(response.body, 'POST /tasks');
  }

  async status(taskId: string, call: CallOptions = {}): Promise<MinerUTaskStatus> {
    const path = `/tasks/${encodeURIComponent(taskId)}`;
    const response = await this.call('GET', path, { ...call, taskId });
    if (response.status !== 200) throw errorForStatus(response, `MinerU GET ${path}`, taskId);
    return asTaskStatus(response.body, `GET ${path}`);
  }

  /** `GET /tasks/{id}/result`: `202` not ready, `409` failed, `200` the result. */
  async result(taskId: string, call: CallOptions = {}): Promise<MinerUResultState> {
    const path = `/tasks/${encodeURIComponent(taskId)}/result`;
    const response = await this.call('GET', path, { ...call, taskId });
    if (response.status === 202) {
      const task = asTaskStatus(response.body, `GET ${path}`);
      return { state: task.status === 'processing' ? 'processing' : 'pending', task };
    }
    if (response.status === 409) {
      const task = asTaskStatus(response.body, `GET ${path}`);
      return { state: 'failed', error: task.error ?? task.message ?? 'MinerU reported the task as failed', task };
    }
    if (response.status !== 200) throw errorForStatus(response, `MinerU GET ${path}`, taskId);
    return { state: 'completed', result: parseResult(response.body, `GET ${path}`) };
  }

  private call(method: string, path: string, options: CallOptions & { body?: FormData; taskId?: string }): Promise<MinerUResponse> {
    return exchange(this.fetchImpl, `${this.baseUrl}${path}`, method, { ...options, timeoutMs: this.requestTimeoutMs });
  }
}

function submitForm(file: MinerUFile, options: SubmitOptions): FormData {
  const form = new FormData();
  // MinerU detects the type from the bytes, so the part's content type does not matter.
  form.append('files', new Blob([file.data]), file.name);
  for (const lang of options.langList ?? []) form.append('lang_list', lang);
  if (options.backend !== undefined) form.append('backend', options.backend);
  if (options.parseMethod !== undefined) form.append('parse_method', options.parseMethod);
  if (options.formulaEnable !== undefined) form.append('formula_enable', String(options.formulaEnable));
  if (options.tableEnable !== undefined) form.append('table_enable', String(options.tableEnable));
  if (options.startPageId !== undefined) form.append('start_page_id', String(options.startPageId));
  if (options.endPageId !== undefined) form.append('end_page_id', String(options.endPageId));
  // What we read back: markdown, the content list and its images, as JSON (not a zip).
  form.append('return_md', 'true');
  form.append('return_content_list', 'true');
  form.append('return_images', 'true');
  form.append('return_middle_json', String(options.returnMiddleJson ?? false));
  form.append('response_format_zip', 'false');
  return form;
}

function asTaskStatus(body: unknown, what: string): MinerUTaskStatus {
  if (!isRecord(body) || typeof body.task_id !== 'string' || !TASK_STATES.includes(body.status as MinerUTaskState)) {
    throw protocolError(what, body);
  }
  return body as unknown as MinerUTaskStatus;
}

function parseResult(body: unknown, what: string): MinerUResult {
  if (!isRecord(body) || !isRecord(body.results)) throw protocolError(what, body);
  // We submit one file per task, so there is exactly one entry, keyed by MinerU's stem.
  const entries = Object.entries(body.results);
  const first = entries[0];
  if (entries.length !== 1 || first === undefined || !isRecord(first[1])) {
    throw protocolError(what, `expected one file in results, got ${entries.length}`);
  }
  const [stem, file] = first as [string, MinerUWireFileResult];
  return {
    backend: typeof body.backend === 'string' ? body.backend : '',
    version: typeof body.version === 'string' ? body.version : '',
    stem,
    markdown: typeof file.md_content === 'string' ? file.md_content : null,
    contentList: parseContentList(file.content_list, what),
    middleJson: parseJsonText(file.middle_json, `${what} middle_json`),
    images: parseImages(file.images, what),
  };
}

function parseContentList(text: unknown, what: string): MinerUContentItem[] | null {
  const value = parseJsonText(text, `${what} content_list`);
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every(isRecord)) throw protocolError(`${what} content_list`, 'not a list of objects');
  return value as MinerUContentItem[];
}

/** content_list and middle_json arrive as the files' text: JSON inside a JSON string. */
function parseJsonText(text: unknown, what: string): unknown {
  if (text === undefined || text === null) return null;
  if (typeof text !== 'string') throw protocolError(what, 'expected a JSON string');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new MinerUError('server_error', `MinerU ${what} is not valid JSON`, { cause: err });
  }
}

function parseImages(images: unknown, what: string): Record<string, string> {
  if (images === undefined || images === null) return {};
  if (!isRecord(images) || !Object.values(images).every((v) => typeof v === 'string')) throw protocolError(`${what} images`, images);
  return images as Record<string, string>;
}

/** A 2xx whose body is not what protocol 2 promises: retrying may reach a healthy replica. */
function protocolError(what: string, body: unknown): MinerUError {
  const shown = typeof body === 'string' ? body : JSON.stringify(body);
  return new MinerUError('server_error', `MinerU ${what}: unexpected response ${String(shown).slice(0, 300)}`, { body });
}
