import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

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

/** Rewrites only this bench's section (`<!-- bench:<name> -->` … `<!-- /bench:<name> -->`), adding the markers if missing. */
export function writeBenchSection(name: string, body: string): void {
  const [open, close] = [`<!-- bench:${name} -->`, `<!-- /bench:${name} -->`];
  let doc = readFileSync(BENCH_DOC, 'utf8');
  if (!doc.includes(open)) doc += `\n${open}\n${close}\n`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (end < start) throw new Error(`${BENCH_DOC}: ${close} comes before ${open}`);
  writeFileSync(BENCH_DOC, `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`);
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
