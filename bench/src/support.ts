import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
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

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
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
