import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { scanKeys, unlinkKeys, type RedisClient } from '@readpack/redis';
import { ThrowawayRedis } from '@readpack/testing';

/** Shared by the bench scripts: clean-up, ports, Redis namespaces and docs/benchmarks.md sections. */

export const BENCH_DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

/** Run in reverse order by `cleanUp()`, also when a bench fails half-way. */
export const cleanups: (() => Promise<void> | void)[] = [];

export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error('cleanup failed:', error);
    }
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function deleteByPrefix(redis: RedisClient, prefix: string): Promise<void> {
  for await (const keys of scanKeys(redis, `${prefix}:*`, 1_000)) await unlinkKeys(redis, keys);
}

/**
 * Rewrites only this bench's section (`<!-- bench:<name> -->` … `<!-- /bench:<name> -->`), adding
 * the markers if missing, and prints it. Read just before writing: other benches may have run.
 */
export function writeBenchSection(name: string, body: string): void {
  const [open, close] = [`<!-- bench:${name} -->`, `<!-- /bench:${name} -->`];
  let doc = readFileSync(BENCH_DOC, 'utf8');
  if (!doc.includes(open)) doc += `\n${open}\n${close}\n`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (end < start) throw new Error(`${BENCH_DOC}: ${close} comes before ${open}`);
  writeFileSync(BENCH_DOC, `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`);
  console.log(`\n${body}\n\nwritten to ${BENCH_DOC}`);
}

/** The machine a result was measured on, for the first line of a section: cores, memory, Node, and `extra`. */
export function describeMachine(...extra: string[]): string {
  const cpu = cpus();
  return [`${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}`, `${Math.round(totalmem() / 2 ** 30)} GiB`, `Node ${process.version}`, ...extra].join(', ');
}

/**
 * What the machine was doing around a run, from its 1-minute load averages at the start and at the
 * end: a sentence for the report, so that whether the numbers are noisy is read off the run itself
 * (the start decides: by the end the bench's own processes load the cores).
 */
export function loadNote(startLoad: number, endLoad: number, cores = cpus().length): string {
  const range = `load average ${startLoad.toFixed(1)} at the start, ${endLoad.toFixed(1)} at the end on ${cores} cores`;
  // The run loads the cores itself; only what ran before it says whether others shared them.
  return startLoad > cores / 2 ? `${range}: other work was running when the bench began, so times are noisy` : `${range}: nothing else was running when the bench began`;
}

/** Resident memory of a process in MB from /proc (0 once it is gone: a sampler outlives its processes). */
export function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the process has exited
  }
}

/** The 1-minute load average now. */
export function loadNow(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** Runs a bench's main: Ctrl-C and failures both run `cleanUp` (child processes, Redis keys, files). */
export async function runBench(main: () => Promise<void>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanUp().then(() => process.exit(130)));
  }
  try {
    await main();
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

/** Registers a child process with `cleanUp` (SIGTERM, SIGKILL after 10 s); returns its stop function. */
export function stopOnCleanUp(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    }
  };
  cleanups.push(stop);
  return stop;
}

/**
 * REDIS_URL when given; otherwise a private, persistence-free redis-server on a free port (with
 * `extraArgs`), stopped and removed by `cleanUp`.
 */
export async function benchRedis(extraArgs: string[] = []): Promise<{ url: string; private: boolean }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, private: false };
  const redis = await ThrowawayRedis.start({ extraArgs });
  cleanups.push(() => redis.dispose());
  return { url: redis.url, private: true };
}

export interface ChartBar {
  label: string;
  /** The measured value, in the chart's unit. */
  value: number;
  /** Where the goal lies, drawn as a mark on the bar's row. */
  goal?: number;
}

/**
 * A horizontal bar chart as a standalone SVG in docs/charts/<name>.svg (no library: a few rects
 * and texts), from the run's own numbers; returns the path to link from the bench section.
 */
export function writeBenchChart(name: string, title: string, unit: string, bars: readonly ChartBar[]): string {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const [labelWidth, barWidth, row, top] = [300, 360, 26, 40];
  const max = Math.max(1e-9, ...bars.flatMap((b) => [b.value, b.goal ?? 0])) * 1.1;
  const x = (v: number) => labelWidth + (v / max) * barWidth;
  const rows = bars.map((b, i) => {
    const y = top + i * row;
    const goal = b.goal === undefined ? '' : `<line x1="${x(b.goal).toFixed(1)}" y1="${y - 2}" x2="${x(b.goal).toFixed(1)}" y2="${y + row - 6}" stroke="#c0392b" stroke-width="2"/>`;
    return `<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${escape(b.label)}</text><rect x="${labelWidth}" y="${y}" width="${(x(b.value) - labelWidth).toFixed(1)}" height="${row - 10}" fill="#2c6fbb"/><text x="${(x(b.value) + 6).toFixed(1)}" y="${y + 14}">${escape(`${Number(b.value.toPrecision(3))} ${unit}`)}</text>${goal}`;
  });
  const height = top + bars.length * row + 24;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + barWidth + 140}" height="${height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="#fff"/><text x="10" y="22" font-weight="bold">${escape(title)}</text>
${rows.join('\n')}
<text x="10" y="${height - 8}" fill="#c0392b">red mark: the goal</text>
</svg>
`;
  const dir = fileURLToPath(new URL('../../docs/charts/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${name}.svg`, svg);
  return `charts/${name}.svg`;
}
