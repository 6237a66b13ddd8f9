/**
 * The deployment the throughput benches drive: the supervisor as `npm start` runs it on a private
 * Redis, its process tree, and one-page documents uploaded and followed to `done`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { EXTENSIONS, generate, type Format } from './throughput-documents.js';
import { freePort, rssMb, stopOnCleanUp } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DOC_TIMEOUT_MS = 180_000;

export interface Deployment {
  port: number;
  prefix: string;
  supervisor: ChildProcess;
  stop(): Promise<void>;
}

export interface DocResult {
  jobId: string;
  ms: number;
}

/** The files of one format: `count` distinct documents numbered from `from`. */
export async function writeDocuments(dir: string, format: Format, from: number, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let n = from; n < from + count; n += 1) {
    const path = join(dir, `${format}-${n}.${EXTENSIONS[format]}`);
    writeFileSync(path, await generate(format, n));
    paths.push(path);
  }
  return paths;
}

export async function startDeployment(work: string, redisUrl: string, extractConsumers: number, profileDir?: string, extraEnv: Record<string, string> = {}): Promise<Deployment> {
  const port = await freePort();
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(join(work, 'data-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: redisUrl,
    READPACK_PREFIX: prefix,
    DATA_DIR: dataDir,
    PORT: String(port),
    CONVERT_CONSUMERS: '0',
    // One tenant uploads every document here: the per-tenant limits (120 a minute) would measure themselves.
    UPLOAD_RATE_PER_MINUTE: '1000000',
    EXTRACT_CONSUMERS: String(extractConsumers),
    ...extraEnv,
    ...(profileDir ? { READPACK_CPU_PROFILE_DIR: profileDir, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${join(REPO, 'bench/dist/cpu-profile-preload.js')}`.trim() } : {}),
  };
  const supervisor = spawn(process.execPath, [join(REPO, 'apps/supervisor/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = stopOnCleanUp(supervisor);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (supervisor.exitCode !== null) throw new Error(`the supervisor exited with code ${supervisor.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the API did not answer /readyz within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, prefix, supervisor, stop };
}

/** Every process under `pid` (the supervisor), with a name from its command line. */
export function processTree(pid: number, parentName = ''): { pid: number; name: string }[] {
  let cmdline: string[];
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
  const script = cmdline.find((arg) => arg.endsWith('.js')) ?? cmdline[0] ?? '?';
  const name = script.includes('supervisor/dist')
    ? 'supervisor'
    : parentName === 'api primary'
      ? 'api worker'
      : script.includes('api/dist')
        ? 'api primary'
        : script.includes('worker/dist/main.js')
          ? `consumer ${cmdline.slice(cmdline.findIndex((arg) => arg.endsWith('worker/dist/main.js')) + 1).join(' + ')}`
          : (script.split('/').at(-1) ?? script);
  const children: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      children.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return [{ pid, name }, ...children.flatMap((child) => processTree(child, name))];
}


export function rssOf(deployment: Deployment): Map<string, { name: string; mb: number }> {
  return new Map(processTree(deployment.supervisor.pid!).map((p) => [`${p.pid}`, { name: p.name, mb: rssMb(p.pid) }]));
}

/** Uploads one file and waits for its record's terminal status on the record's event stream. */
export async function uploadAndWait(deployment: Deployment, redis: Redis, path: string, format: Format): Promise<DocResult> {
  const bytes = await readFile(path);
  const started = performance.now();
  const form = new FormData();
  form.append('file', new Blob([bytes]), path.split('/').at(-1)!);
  // The bench's OCR baseline reads English; auto-detection would add an OSD pass the baseline lacks.
  if (format === 'png') form.append('ocrLang', 'eng');
  const res = await fetch(`http://127.0.0.1:${deployment.port}/api/files`, { method: 'POST', body: form });
  if (res.status !== 202) throw new Error(`upload of ${path}: ${res.status} ${await res.text()}`);
  const { jobId, deduplicated } = (await res.json()) as { jobId: string; deduplicated: boolean };
  if (deduplicated) throw new Error(`upload of ${path} was joined to a running job: the documents must differ`);
  const key = `${deployment.prefix}:job-events:${jobId}`;
  let after = '0';
  const deadline = Date.now() + DOC_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const reply = (await redis.xread('COUNT', 100, 'BLOCK', 5_000, 'STREAMS', key, after)) as [string, [string, string[]][]][] | null;
    for (const [id, fields] of reply?.[0]?.[1] ?? []) {
      after = id;
      const view = JSON.parse(fields[fields.indexOf('view') + 1] ?? '{}') as { status?: string; error?: { code: string; message: string } };
      if (view.status === 'done') return { jobId, ms: performance.now() - started };
      if (view.status === 'failed') throw new Error(`${path} failed: ${view.error?.code} ${view.error?.message}`);
    }
  }
  throw new Error(`${path} not done after ${DOC_TIMEOUT_MS / 1000} s`);
}

/** Every file through the deployment, `concurrency` uploads in flight; the wall time from the first upload to the last `done`. */
export async function runThrough(deployment: Deployment, redisUrl: string, files: string[], format: Format, concurrency: number): Promise<{ seconds: number; results: DocResult[] }> {
  const queue = [...files];
  const results: DocResult[] = [];
  const connections = Array.from({ length: concurrency }, () => new Redis(redisUrl, { maxRetriesPerRequest: null }));
  const started = performance.now();
  try {
    await Promise.all(
      connections.map(async (redis) => {
        for (let file = queue.shift(); file; file = queue.shift()) results.push(await uploadAndWait(deployment, redis, file, format));
      }),
    );
  } finally {
    for (const redis of connections) redis.disconnect();
  }
  return { seconds: (performance.now() - started) / 1000, results };
}

