/**
 * `npm run bench:footprint` — memory of `npm start` at rest.
 *
 * Starts the supervisor as a user would (private Redis under a throwaway DATA_DIR, its own PORT),
 * waits until the API answers and the tree's memory has settled, then reads every process of the
 * tree from /proc: VmRSS (what the goal counts: RSS summed over processes, shared pages counted in
 * each) and Pss from smaps_rollup (shared pages split between their sharers: the honest total).
 * Extra arguments become environment (`KEY=value`), to measure another layout. Results go to the
 * `bench:footprint` section of docs/benchmarks.md.
 *
 * BENCH_FOOTPRINT_BURST=<n> adds a burst: n distinct one-page PNGs uploaded at once (`ocrLang=eng`),
 * the tree read when all are done (the OCR consumer's pool grown), and again once the workers
 * beyond OCR_WARM_WORKERS have idled past OCR_WORKER_IDLE_MS and the tree has settled.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, writeBenchSection } from './support.js';
import { generate } from './throughput-documents.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const GOAL_MB = 500;
/** Settled: the summed RSS moved less than this between two samples SETTLE_INTERVAL_MS apart. */
const SETTLE_MB = 5;
const SETTLE_INTERVAL_MS = 3_000;
const START_TIMEOUT_MS = 180_000;
const BURST = Number(process.env.BENCH_FOOTPRINT_BURST ?? 0);
const BURST_TIMEOUT_MS = 600_000;

interface Sample {
  pid: number;
  role: string;
  rssMb: number;
  pssMb: number;
}

function procField(pid: number, file: string, field: string): number {
  const text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  if (!match) throw new Error(`/proc/${pid}/${file} has no ${field}`);
  return Number(match[1]) / 1024;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH') return undefined; // exited meanwhile
    throw error;
  }
}

/** The root and all its descendants. */
function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(Number(name));
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const pid = frontier.pop()!;
    found.push(pid);
    frontier.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** A readable role from the command line: supervisor, redis-server, api cluster/worker, worker <stages>. */
function roleOf(pid: number, root: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  if (pid === root) return 'supervisor (npm start)';
  if (args[0]?.includes('redis-server')) return 'redis-server';
  const script = args.find((a) => a.endsWith('.js')) ?? args[0] ?? '?';
  if (script.endsWith('apps/api/dist/cluster.js')) return 'api cluster primary';
  if (script.endsWith('apps/api/dist/main.js')) return 'api';
  if (script.endsWith('apps/worker/dist/main.js')) return `worker ${args.slice(args.indexOf(script) + 1).join(' ')}`;
  return args.join(' ');
}

function sample(root: number): Sample[] {
  const samples: Sample[] = [];
  for (const pid of treeOf(root)) {
    try {
      samples.push({ pid, role: roleOf(pid, root), rssMb: procField(pid, 'status', 'VmRSS'), pssMb: procField(pid, 'smaps_rollup', 'Pss') });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  return samples;
}

/** The code measured: the commit, and whether the tree differs from it. */
function codeVersion(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  return `commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : ''}`;
}

const sum = (samples: Sample[], key: 'rssMb' | 'pssMb') => samples.reduce((total, s) => total + s[key], 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Samples until the summed RSS moves less than SETTLE_MB between two of them. */
async function settle(root: number, deadline: number): Promise<Sample[]> {
  let previous = sample(root);
  for (;;) {
    await sleep(SETTLE_INTERVAL_MS);
    const now = sample(root);
    if (now.length === previous.length && Math.abs(sum(now, 'rssMb') - sum(previous, 'rssMb')) < SETTLE_MB) return now;
    if (Date.now() > deadline) throw new Error('the tree did not settle');
    previous = now;
  }
}

/** Uploads `count` distinct PNG pages at once and waits until every one is done (a failure throws). */
async function burst(base: string, count: number): Promise<void> {
  const jobs = await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await generate('png', 900_000 + n))], { type: 'image/png' }), `burst-${n}.png`);
      form.append('ocrLang', 'eng');
      const answer = await fetch(`${base}/api/files`, { method: 'POST', body: form });
      if (answer.status !== 202) throw new Error(`upload answered ${answer.status}: ${await answer.text()}`);
      return ((await answer.json()) as { jobId: string }).jobId;
    }),
  );
  const deadline = Date.now() + BURST_TIMEOUT_MS;
  for (const jobId of jobs) {
    for (;;) {
      const view = (await (await fetch(`${base}/api/files/job/${jobId}`)).json()) as { status: string; error?: unknown };
      if (view.status === 'done') break;
      if (view.status === 'failed') throw new Error(`${jobId} failed: ${JSON.stringify(view.error)}`);
      if (Date.now() > deadline) throw new Error(`${jobId} not done within ${BURST_TIMEOUT_MS / 1000} s`);
      await sleep(200);
    }
  }
}

const byRole = (samples: Sample[]) => new Map(samples.map((s) => [s.role, s.rssMb]));

async function waitHealthy(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // fetch failed: not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${START_TIMEOUT_MS / 1000} s`);
    await sleep(500);
  }
}

/** The burst's part of the section: RSS per process idle, right after the burst, and once its extra OCR workers have stopped. */
async function burstSection(port: number, root: number, idle: Sample[], env: NodeJS.ProcessEnv): Promise<string> {
  const idleMs = Number(env.OCR_WORKER_IDLE_MS ?? 30_000);
  await burst(`http://127.0.0.1:${port}`, BURST);
  const after = sample(root);
  await sleep(idleMs);
  const rested = await settle(root, Date.now() + START_TIMEOUT_MS);
  const [a, b, c] = [byRole(idle), byRole(after), byRole(rested)];
  const mb = (v: number | undefined) => (v === undefined ? '—' : `${v.toFixed(0)} MB`);
  const total = (samples: Sample[]) => sum(samples, 'rssMb');
  const ocr = [...c.keys()].find((role) => role === 'worker ocr');
  const ocrLine =
    ocr === undefined
      ? 'No process of its own ran OCR in this layout.'
      : `The OCR consumer went ${mb(a.get(ocr))} → ${mb(b.get(ocr))} → ${mb(c.get(ocr))}: ${(b.get(ocr)! - c.get(ocr)!).toFixed(0)} MB of the burst returned, ${(c.get(ocr)! - a.get(ocr)!).toFixed(0)} MB kept over its idle start.`;
  return [
    `Then a burst of ${BURST} distinct one-page PNGs uploaded at once (\`ocrLang=eng\`), read when all were done, and again ${(idleMs / 1000).toFixed(0)} s later (OCR_WORKER_IDLE_MS) once the summed RSS settled:`,
    '',
    '| process | idle | after the burst | idle period later |',
    '| --- | ---: | ---: | ---: |',
    ...[...a.keys()].map((role) => `| ${role} | ${mb(a.get(role))} | ${mb(b.get(role))} | ${mb(c.get(role))} |`),
    `| **total** | **${total(idle).toFixed(0)} MB** | **${total(after).toFixed(0)} MB** | **${total(rested).toFixed(0)} MB** |`,
    '',
    `${ocrLine} Total after the idle period ${total(rested).toFixed(0)} MB: ${total(rested) <= GOAL_MB ? `${(GOAL_MB - total(rested)).toFixed(0)} MB under` : `${(total(rested) - GOAL_MB).toFixed(0)} MB over`} the ${GOAL_MB} MB goal.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const extraEnv = Object.fromEntries(process.argv.slice(2).map((arg) => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]));
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-footprint-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(work, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...extraEnv };
  // The user's REDIS_URL would make the supervisor skip its private Redis, which is part of the footprint.
  delete env.REDIS_URL;
  const supervisor = spawn(process.execPath, [join(REPO, 'apps/supervisor/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((r) => supervisor.once('exit', () => r()));
  try {
    const started = Date.now();
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, started + START_TIMEOUT_MS);
    const settled = await settle(supervisor.pid!, started + START_TIMEOUT_MS);
    const idleAfterS = (Date.now() - started) / 1000;
    settled.sort((a, b) => b.rssMb - a.rssMb);
    const rss = sum(settled, 'rssMb');
    const pss = sum(settled, 'pssMb');
    const layout = Object.keys(extraEnv).length > 0 ? Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`).join(' ') : 'defaults';
    const verdict =
      rss <= GOAL_MB
        ? `RSS summed over ${settled.length} processes is ${rss.toFixed(0)} MB, ${(GOAL_MB - rss).toFixed(0)} MB under the ${GOAL_MB} MB goal: met.`
        : `RSS summed over ${settled.length} processes is ${rss.toFixed(0)} MB, ${(rss - GOAL_MB).toFixed(0)} MB over the ${GOAL_MB} MB goal: missed.`;
    const section = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${codeVersion()}, ${cpus().length} cores, Node ${process.version}: \`npm start\` (${layout}) with a private Redis,`,
      `idle (API answering, summed RSS steady within ${SETTLE_MB} MB over ${SETTLE_INTERVAL_MS / 1000} s) ${idleAfterS.toFixed(0)} s after start. Read from /proc: VmRSS counts shared pages`,
      'in every process that maps them (the goal is RSS summed); Pss (smaps_rollup) divides them among their sharers.',
      '',
      '| process | pid | RSS | PSS |',
      '| --- | ---: | ---: | ---: |',
      ...settled.map((s) => `| ${s.role} | ${s.pid} | ${s.rssMb.toFixed(0)} MB | ${s.pssMb.toFixed(0)} MB |`),
      `| **total** (${settled.length} processes) | | **${rss.toFixed(0)} MB** | **${pss.toFixed(0)} MB** |`,
      '',
      verdict,
    ].join('\n');
    writeBenchSection(process.env.BENCH_SECTION ?? 'footprint', BURST > 0 ? `${section}\n\n${await burstSection(port, supervisor.pid!, settled, env)}` : section);
  } finally {
    supervisor.kill('SIGINT');
    await Promise.race([exited, sleep(60_000)]);
    if (supervisor.exitCode === null && supervisor.signalCode === null) supervisor.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
