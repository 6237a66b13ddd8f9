import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFileResult, genericDocument, loadBuiltinCanned, pdfShape, sha256, type CannedDocument } from './canned.js';
import { FaultPlan, type FailRule, type FakeControls, type RequestKind } from './controls.js';
import { readForm, validateForm } from './form.js';
import { SUPPORTED_SUFFIXES, sniffSuffix } from './sniff.js';
import { TaskStore, type FakeTask, type TaskCounters, type TaskFile } from './tasks.js';

export interface FakeMinerUOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** MinerU's MINERU_API_MAX_CONCURRENT_REQUESTS (default 3). */
  maxConcurrent?: number;
  /** How long each task runs (default 50 ms). */
  processingMs?: number;
  /** Extra canned results, used before the built-in ones for the same sha256. */
  canned?: CannedDocument[];
  /** Reported in `/health` and results (default 3.4.4, the MinerU these shapes come from). */
  version?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  kind: RequestKind | 'other';
  /** The status answered, or `hung` for a request the fake never answered. */
  status: number | 'hung';
}

export interface FakeStats extends TaskCounters {
  /** Tasks accepted by `POST /tasks` since start (restarts included). */
  submissions: number;
  /** Every MinerU request in arrival order (control requests excluded). */
  requests: RecordedRequest[];
}

export interface FakeMinerU {
  url: string;
  /** Live counters: read them at any time. */
  stats: FakeStats;
  behave(controls: FakeControls): void;
  /** Disarms every fault and restores the start-up speed and concurrency. */
  reset(): void;
  /** A MinerU restart: every task is forgotten, later GETs about them answer 404. */
  restart(): void;
  /** Fails a task now (status `failed`, result `409`); false when no such task. */
  failTask(taskId: string, error?: string): boolean;
  close(): Promise<void>;
}

const DEFAULT_TASK_ERROR = 'Injected failure: the MinerU fake was told to fail this task';

/** A MinerU-compatible HTTP server (mineru-api 3.x, protocol 2) with fault injection. */
export async function startFakeMinerU(options: FakeMinerUOptions = {}): Promise<FakeMinerU> {
  const version = options.version ?? '3.4.4';
  const initial = { maxConcurrent: options.maxConcurrent ?? 3, processingMs: options.processingMs ?? 50 };
  const canned = new Map<string, CannedDocument>();
  for (const doc of [...loadBuiltinCanned(), ...(options.canned ?? [])]) canned.set(doc.source.sha256, doc);

  const stats: FakeStats = { submissions: 0, inFlight: 0, maxInFlight: 0, outstanding: 0, maxOutstanding: 0, requests: [] };
  const plan = new FaultPlan();
  const store = new TaskStore({ ...initial }, stats, (task) => finishTask(task, canned, version));
  const hung = new Set<ServerResponse>();

  const fake: Omit<FakeMinerU, 'url' | 'close'> = {
    stats,
    behave(controls) {
      plan.apply(controls);
      const settings: { processingMs?: number; maxConcurrent?: number } = {};
      if (controls.processingMs !== undefined) settings.processingMs = controls.processingMs;
      if (controls.maxConcurrent !== undefined) settings.maxConcurrent = controls.maxConcurrent;
      store.configure(settings);
    },
    reset() {
      plan.clear();
      store.configure(initial);
    },
    restart() {
      store.forget();
    },
    failTask(taskId, error) {
      return store.fail(taskId, error ?? DEFAULT_TASK_ERROR);
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { detail: `MinerU fake bug: ${err instanceof Error ? err.message : String(err)}` });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (path.startsWith('/__fake/')) return control(req, res, path);

    const route = routeOf(req.method ?? 'GET', path);
    const record: RecordedRequest = { method: req.method ?? 'GET', path, kind: route.kind ?? 'other', status: 0 };
    stats.requests.push(record);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      send(res, status, body, headers);
    };

    if (route.kind && plan.takeHang(route.kind)) {
      record.status = 'hung';
      hung.add(res);
      res.on('close', () => hung.delete(res));
      req.resume();
      return;
    }
    const fault = route.kind ? plan.takeFail(route.kind) : undefined;
    if (fault) {
      await drain(req);
      const [status, body, headers] = faultResponse(fault);
      record.status = status;
      res.writeHead(status, headers).end(body);
      return;
    }
    if (route.status) {
      await drain(req);
      return answer(route.status, { detail: route.status === 405 ? 'Method Not Allowed' : 'Not Found' });
    }

    const base = `http://${req.headers.host ?? 'localhost'}`;
    if (route.kind === 'health') {
      const counts = store.countByState();
      const configured = store.settingsNow();
      return answer(200, {
        status: 'healthy',
        version,
        protocol_version: 2,
        queued_tasks: counts.pending,
        processing_tasks: counts.processing,
        completed_tasks: counts.completed,
        failed_tasks: counts.failed,
        max_concurrent_requests: configured.maxConcurrent,
        processing_window_size: 64,
        task_retention_seconds: 86400,
        task_cleanup_interval_seconds: 300,
      });
    }
    if (route.kind === 'submit') {
      let form;
      try {
        form = await readForm(req);
      } catch {
        return answer(400, { detail: 'There was an error parsing the body' });
      }
      const validated = validateForm(form);
      if ('status' in validated) return answer(validated.status, validated.body);
      if (validated.responseFormatZip) return answer(400, { detail: 'response_format_zip=true is not simulated by the MinerU fake' });
      const files: TaskFile[] = [];
      const stems = new Set<string>();
      for (const upload of form.files) {
        const suffix = sniffSuffix(upload.data);
        if (!SUPPORTED_SUFFIXES.has(suffix)) return answer(400, { detail: `Unsupported file type: ${suffix}` });
        files.push({ stem: uniqueStem(upload.name, stems), name: upload.name, suffix, data: upload.data });
      }
      const task = store.submit(files, validated, plan.takeTaskFailure());
      stats.submissions += 1;
      return answer(202, { ...statusPayload(task, base), queued_ahead: store.queuedAhead(task), message: 'Task submitted successfully' });
    }

    const task = route.taskId === undefined ? undefined : store.get(route.taskId);
    if (!task) return answer(404, { detail: 'Task not found' });
    if (route.kind === 'status') return answer(200, { ...statusPayload(task, base), queued_ahead: store.queuedAhead(task) });
    if (task.status === 'pending' || task.status === 'processing') {
      return answer(202, { ...statusPayload(task, base), message: 'Task result is not ready yet' });
    }
    if (task.status === 'failed') return answer(409, { ...statusPayload(task, base), message: 'Task execution failed' });
    return answer(200, { backend: task.backend, version, results: task.results ?? {} });
  }

  /** The `/__fake/…` control surface, for tests and demos in another process. */
  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const body = await readJson(req);
    if (body === undefined) return send(res, 400, { detail: 'control bodies are JSON objects' });
    if (req.method === 'GET' && path === '/__fake/stats') return send(res, 200, stats);
    if (req.method === 'POST' && path === '/__fake/behave') {
      const problem = controlsProblem(body);
      if (problem) return send(res, 400, { detail: problem });
      fake.behave(body as FakeControls);
      return send(res, 200, { ok: true });
    }
    if (req.method === 'POST' && path === '/__fake/reset') {
      fake.reset();
      return send(res, 200, { ok: true });
    }
    if (req.method === 'POST' && path === '/__fake/restart') {
      fake.restart();
      return send(res, 200, { ok: true });
    }
    const failPath = /^\/__fake\/tasks\/([^/]+)\/fail$/.exec(path);
    if (req.method === 'POST' && failPath) {
      const error = typeof body.error === 'string' ? body.error : undefined;
      return fake.failTask(decodeURIComponent(failPath[1] ?? ''), error) ? send(res, 200, { ok: true }) : send(res, 404, { detail: 'Task not found' });
    }
    return send(res, 404, { detail: 'Not Found' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    ...fake,
    url: `http://${host}:${address.port}`,
    async close() {
      store.forget();
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Route {
  kind?: RequestKind;
  taskId?: string;
  /** 404/405 for paths MinerU does not serve. */
  status?: 404 | 405;
}

function routeOf(method: string, path: string): Route {
  const allow = (wanted: string, route: Route): Route => (method === wanted ? route : { status: 405 });
  if (path === '/health') return allow('GET', { kind: 'health' });
  if (path === '/tasks') return allow('POST', { kind: 'submit' });
  const task = /^\/tasks\/([^/]+)(\/result)?$/.exec(path);
  if (task) return allow('GET', { kind: task[2] ? 'result' : 'status', taskId: decodeURIComponent(task[1] ?? '') });
  return { status: 404 };
}

function statusPayload(task: FakeTask, base: string): Record<string, unknown> {
  return {
    task_id: task.id,
    status: task.status,
    backend: task.backend,
    file_names: task.files.map((file) => file.stem),
    created_at: task.createdAt,
    started_at: task.startedAt,
    completed_at: task.completedAt,
    error: task.error,
    status_url: `${base}/tasks/${task.id}`,
    result_url: `${base}/tasks/${task.id}/result`,
  };
}

/** Results per file: canned by sha256, else generic; an unreadable PDF fails like MinerU's loader. */
function finishTask(task: FakeTask, canned: Map<string, CannedDocument>, version: string): Record<string, Record<string, unknown>> {
  const results: Record<string, Record<string, unknown>> = {};
  for (const file of task.files) {
    const digest = sha256(file.data);
    let doc = canned.get(digest);
    if (!doc) {
      const shape = file.suffix === 'pdf' ? pdfShape(file.data) : { pageCount: 1, pageSize: [612, 792] as [number, number] };
      if (shape.pageCount === 0) throw new Error(`Failed to load file ${file.name}: Failed to load document (PDFium: Data format error).`);
      doc = genericDocument(file.name, digest, shape.pageCount, shape.pageSize);
    }
    results[file.stem] = buildFileResult(doc, { ...task.options, backend: task.backend, version });
  }
  return results;
}

/** The upload's stem; a second upload with the same stem in one request gets a suffix. */
function uniqueStem(name: string, taken: Set<string>): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  const stem = (dot > 0 ? base.slice(0, dot) : base) || 'unnamed';
  let candidate = stem;
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem}_${n}`;
  taken.add(candidate);
  return candidate;
}

function faultResponse(rule: FailRule): [number, string, Record<string, string>] {
  const headers: Record<string, string> = {};
  if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
  // uvicorn answers an unhandled exception with a plain-text 500; HTTPExceptions are FastAPI JSON.
  if (rule.status === 500 && rule.detail === undefined) return [500, 'Internal Server Error', { ...headers, 'content-type': 'text/plain; charset=utf-8' }];
  const detail = rule.detail ?? `Injected ${rule.status} from the MinerU fake`;
  return [rule.status, JSON.stringify({ detail }), { ...headers, 'content-type': 'application/json' }];
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    req.on('end', resolve);
    req.on('error', () => resolve());
    req.resume();
  });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    // Not JSON: the caller answers 400.
    return undefined;
  }
}

function controlsProblem(body: Record<string, unknown>): string | undefined {
  const { processingMs, maxConcurrent, fail, hang, failTasks } = body;
  if (processingMs !== undefined && (typeof processingMs !== 'number' || processingMs < 0)) return 'processingMs must be a number >= 0';
  if (maxConcurrent !== undefined && (!Number.isInteger(maxConcurrent) || (maxConcurrent as number) < 1)) return 'maxConcurrent must be an integer >= 1';
  const rules = fail === undefined ? [] : Array.isArray(fail) ? fail : [fail];
  for (const rule of rules as unknown[]) {
    if (typeof rule !== 'object' || rule === null || typeof (rule as FailRule).status !== 'number') return 'each fail rule needs a numeric status';
  }
  if (hang !== undefined && (typeof hang !== 'object' || hang === null)) return 'hang must be an object';
  if (failTasks !== undefined && (typeof failTasks !== 'object' || failTasks === null)) return 'failTasks must be an object';
  return undefined;
}
