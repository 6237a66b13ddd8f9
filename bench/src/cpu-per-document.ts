/**
 * `npm run bench:cpu-per-doc` — CPU time each process of the deployment spends per one-page DOCX
 * (issue 14: the overhead around a small document). Wall time on a shared machine swings with the
 * neighbours' load; CPU time read from /proc (utime + stime) hardly does, so this is the number the
 * overhead cuts are judged by.
 *
 * The service runs as in `bench:throughput` (supervisor defaults, a private redis-server). After a
 * warm-up it reads every process's CPU, uploads BENCH_DOCS (200) distinct DOCX 8 at a time, reads
 * again, and subtracts what the idle deployment spends in as long (polls, heartbeats, stall checks:
 * sampled for IDLE_SECONDS before the run). Both the whole process (every thread: extract's parse
 * runs in a worker thread) and its main thread are shown. BENCH_CPU_PROFILE=<dir> also writes V8
 * profiles of every main thread and prints their self time over the run, by module and by function.
 * The table goes to the `bench:cpu-per-doc` section of docs/benchmarks.md; the profile summary
 * (BENCH_CPU_PROFILE) only to stdout.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { processTree, runThrough, startDeployment, writeDocuments } from './throughput-deployment.js';
import { benchRedis, cleanups, describeMachine, loadNote, loadNow, runBench, writeBenchSection } from './support.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 200);
const UPLOAD_CONCURRENCY = 8;
/**
 * Warmed up as the run loads it, UPLOAD_CONCURRENCY at a time: a warm-up one at a time starts one
 * parser thread only, and the second then started inside the measured run (module loading and JIT:
 * about 0.7 s of CPU, 3.5 ms per document of 200, counted as if every document paid it).
 */
const WARM_UP_DOCS = 2 * UPLOAD_CONCURRENCY;
const IDLE_SECONDS = 10;
/** USER_HZ: /proc reports CPU time in clock ticks of 10 ms on Linux. */
const TICK_MS = 10;

interface CpuSample {
  name: string;
  /** Every thread of the process, ms. */
  total: number;
  /** The main thread alone, ms. */
  main: number;
}

/** utime + stime of a /proc stat line, in ms (fields 14 and 15; the name in parentheses may hold spaces). */
function statCpuMs(path: string): number | undefined {
  let line: string;
  try {
    line = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function sampleCpu(pids: readonly { pid: number; name: string }[]): Map<number, CpuSample> {
  const samples = new Map<number, CpuSample>();
  for (const { pid, name } of pids) {
    const total = statCpuMs(`/proc/${pid}/stat`);
    const main = statCpuMs(`/proc/${pid}/task/${pid}/stat`);
    if (total !== undefined && main !== undefined) samples.set(pid, { name, total, main });
  }
  return samples;
}

/** CPU ms of every thread of a process by thread id (all named `node`: told apart by when they started, in the report). */
function threadCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    // The process has ended: it has no threads to count.
    return threads;
  }
  for (const tid of tids) {
    const ms = statCpuMs(`/proc/${pid}/task/${tid}/stat`);
    if (ms !== undefined) threads.set(Number(tid), ms);
  }
  return threads;
}

function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Which module a frame belongs to: an npm package, a workspace package, Node's internals, or V8's pseudo frames. */
function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm) return npm[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

/** Self time over the window of one main-thread profile, by module and by function, in ms. */
function profileSelfTime(path: string, from: number, to: number): { byModule: Map<string, number>; byFunction: Map<string, number> } | undefined {
  let profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  try {
    profile = JSON.parse(readFileSync(path, 'utf8')) as typeof profile;
  } catch {
    return undefined;
  }
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((sample, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const frame = nodes.get(sample)?.callFrame;
    if (at < from || at > to || !frame || frame.functionName === '(idle)') return;
    const module = moduleOf(frame.url, frame.functionName);
    const fn = `${frame.functionName || '(anonymous)'} ${module}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byModule.set(module, (byModule.get(module) ?? 0) + delta / 1000);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta / 1000);
  });
  return { byModule, byFunction };
}

function top(map: Map<string, number>, n: number): [string, number][] {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
}

async function main(): Promise<void> {
  const startLoad = loadNow();
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-cpu-'));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const docsDir = join(work, 'docs');
  mkdirSync(docsDir);
  const profileDir = process.env.BENCH_CPU_PROFILE;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const warmUp = await writeDocuments(docsDir, 'docx', 100_000, WARM_UP_DOCS);
  const files = await writeDocuments(docsDir, 'docx', 0, DOCS);

  const { url: redisUrl } = await benchRedis(['--save', '', '--appendonly', 'no']);
  const stats = new Redis(redisUrl);
  cleanups.push(() => void stats.disconnect());
  const redisPid = Number(/process_id:(\d+)/.exec(await stats.info('server'))?.[1]);
  const deployment = await startDeployment(work, redisUrl, 1, profileDir);
  // Let every consumer finish starting before anything is sampled.
  await new Promise((r) => setTimeout(r, 8_000));
  await runThrough(deployment, redisUrl, warmUp, 'docx', UPLOAD_CONCURRENCY);

  const pids = [...processTree(deployment.supervisor.pid!), ...(redisPid ? [{ pid: redisPid, name: 'redis-server' }] : [])];
  const idleStart = sampleCpu(pids);
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleEnd = sampleCpu(pids);
  const idleSeconds = (performance.now() - idleStarted) / 1000;

  const before = sampleCpu(pids);
  const threadsBefore = new Map(pids.map(({ pid }) => [pid, threadCpu(pid)]));
  const window = { from: monotonicMicros(), to: 0 };
  const run = await runThrough(deployment, redisUrl, files, 'docx', UPLOAD_CONCURRENCY);
  window.to = monotonicMicros();
  const after = sampleCpu(pids);
  const threadsAfter = new Map(pids.map(({ pid }) => [pid, threadCpu(pid)]));
  await deployment.stop();

  const f = (n: number, digits = 2) => n.toFixed(digits);
  const rows: string[] = [];
  let sumTotal = 0;
  let sumMain = 0;
  for (const [pid, end] of after) {
    const start = before.get(pid);
    const i0 = idleStart.get(pid);
    const i1 = idleEnd.get(pid);
    if (!start || !i0 || !i1) continue;
    const idleTotalRate = (i1.total - i0.total) / idleSeconds;
    const idleMainRate = (i1.main - i0.main) / idleSeconds;
    const total = Math.max(0, end.total - start.total - idleTotalRate * run.seconds) / DOCS;
    const mainThread = Math.max(0, end.main - start.main - idleMainRate * run.seconds) / DOCS;
    if (end.name !== 'redis-server') {
      sumTotal += total;
      sumMain += mainThread;
    }
    rows.push(`| ${end.name} | ${f(total)} | ${f(mainThread)} | ${f(idleTotalRate, 1)} |`);
  }
  // Threads in the order they started (thread ids grow): the main thread, V8's platform workers,
  // then libuv's pool and worker threads as they were first needed.
  const threadLines: string[] = [];
  for (const { pid, name } of pids) {
    const start = threadsBefore.get(pid);
    const end = threadsAfter.get(pid);
    if (!start || !end || name === 'redis-server') continue;
    const busy = [...end].map(([tid, ms]) => [tid, (ms - (start.get(tid) ?? 0)) / DOCS] as const).filter(([, ms]) => ms > 0.05);
    if (busy.length > 0) threadLines.push(`- ${name}: ${busy.map(([tid, ms]) => `${tid === pid ? 'main' : `+${tid - pid}`} ${f(ms)}`).join(', ')}`);
  }
  writeBenchSection(
    'cpu-per-doc',
    [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${describeMachine(loadNote(startLoad, loadNow()))}.`,
      `${DOCS} one-page DOCX through the service as \`npm start\` runs it, ${UPLOAD_CONCURRENCY} uploads at a time (${f(run.seconds, 1)} s, ${f(DOCS / run.seconds, 1)} documents/s).`,
      `CPU time per document from /proc (utime + stime), less what each process spends idle in as long (sampled for ${IDLE_SECONDS} s before the run);`,
      "extract's parse runs in a worker thread of the consumer process: it is in \"all threads\", not in \"main thread\".",
      `The Node processes spent ${f(sumTotal)} ms per document (${f(sumMain)} ms on their main threads).`,
      '',
      '| process | CPU ms per document, all threads | main thread | idle ms/s |',
      '| --- | ---: | ---: | ---: |',
      ...rows,
      '',
      'CPU ms per document by thread, not less idle (thread id less the process id: V8 starts its platform workers right after the main thread, libuv its pool and Node the parser threads when first needed; all are named `node`):',
      ...threadLines,
    ].join('\n'),
  );

  if (profileDir) {
    for (const { pid, name } of pids) {
      const self = profileSelfTime(join(profileDir, `${pid}.cpuprofile`), window.from, window.to);
      if (!self) continue;
      console.log(`\n${name} (pid ${pid}), main-thread self time per document by module:`);
      for (const [module, ms] of top(self.byModule, 15)) console.log(`  ${f(ms / DOCS, 3)} ms  ${module}`);
      console.log('  by function:');
      for (const [fn, ms] of top(self.byFunction, 25)) console.log(`  ${f(ms / DOCS, 3)} ms  ${fn}`);
    }
  }
}

void runBench(main);
