import { mkdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import type { ProcessSpec } from './process-supervisor.js';
import { aptInstallCommand, ensureSystemPackages, findExecutable, redisServerRequirement, type EnsureSystemOptions } from './system-packages.js';

export { findExecutable } from './system-packages.js';

export function installCommand(root: boolean): string {
  return aptInstallCommand(['redis-server'], root);
}

export type EnsureRedisResult =
  | { ok: true; binary: string; installed: boolean }
  | { ok: false; command: string; reason: string };

export type EnsureRedisOptions = EnsureSystemOptions;

/**
 * Finds `redis-server`, installing it with apt-get when that is possible without asking anyone
 * (root on a Debian-like system; see ensureSystemPackages). Otherwise reports the command a human
 * has to run.
 */
export async function ensureRedisServer(options: EnsureRedisOptions = {}): Promise<EnsureRedisResult> {
  const find = options.find ?? ((name: string) => findExecutable(name));
  const existing = find('redis-server');
  if (existing) return { ok: true, binary: existing, installed: false };
  const ensured = await ensureSystemPackages([redisServerRequirement(find)], { ...options, find });
  if (!ensured.ok) return { ok: false, command: ensured.command, reason: ensured.reason };
  const binary = find('redis-server');
  if (!binary) return { ok: false, command: installCommand(options.isRoot ?? process.getuid?.() === 0), reason: 'redis-server is not on PATH' };
  return { ok: true, binary, installed: ensured.installed.length > 0 };
}

export interface PrivateRedisOptions {
  binary: string;
  port: number;
  /** Working directory of the server: the AOF lives here. Created if missing. */
  dir: string;
  name?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: 'inherit' | 'ignore';
  /** Default 1: after the default phase 0, so the processes using Redis drain into it first. */
  stopPhase?: number;
}

/**
 * A loopback-only redis-server for one machine's pipeline. AOF with fsync every second: a crash
 * loses at most a second of queue state; a restart on the same dir brings the rest back. No RDB
 * snapshots (`--save ""`): the AOF is the one copy. `noeviction`: BullMQ must never lose keys
 * to memory pressure, it should get errors instead.
 */
export function privateRedisArgs(port: number, dir: string): string[] {
  return [
    '--bind', '127.0.0.1',
    '--port', String(port),
    '--dir', dir,
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--maxmemory-policy', 'noeviction',
    '--save', '',
    '--daemonize', 'no',
    // Job records hold values over Redis' default 64 bytes (a media type, a result pointer, the
    // ~500-byte status document with a long file name up to ~800): 1024 keeps them in the compact
    // listpack encoding, about a third less memory than a hashtable (docs/benchmarks.md measures it).
    '--hash-max-listpack-value', '1024',
    // A supervisor killed with SIGKILL cannot stop its Redis: the next start finds it by this file.
    '--pidfile', join(dir, 'redis.pid'),
  ];
}

export function privateRedisSpec(options: PrivateRedisOptions): ProcessSpec {
  mkdirSync(options.dir, { recursive: true });
  return {
    name: options.name ?? 'redis',
    command: options.binary,
    args: privateRedisArgs(options.port, options.dir),
    env: options.env,
    stdio: options.stdio,
    stopPhase: options.stopPhase ?? 1,
    stopSignal: 'SIGTERM',
    // SIGTERM makes Redis fsync the AOF before exiting; give a large AOF time to finish.
    stopTimeoutMs: 30_000,
  };
}

/** A port nothing listens on right now (the OS picks it). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not determine a free port'))));
    });
  });
}

/**
 * True when a Redis on `host:port` answers PING with +PONG. An inline command over raw TCP
 * needs no client library; a server still loading its AOF answers -LOADING, which is false.
 */
export function pingRedis(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect({ port, host });
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      const end = reply.indexOf('\r\n');
      if (end >= 0) finish(reply.slice(0, end) === '+PONG');
    });
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}

export async function waitForRedis(
  port: number,
  options: { host?: string; timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const { host = '127.0.0.1', timeoutMs = 30_000, intervalMs = 100, signal } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    if (await pingRedis(port, host)) return;
    if (Date.now() >= deadline) throw new Error(`redis-server on ${host}:${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, intervalMs);
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

/**
 * A redis-server that an earlier `npm start` left behind (its supervisor was SIGKILLed and could
 * not stop it) still owns `dir`'s AOF. Two servers on one AOF would corrupt it: stop the old one
 * (SIGTERM, so it flushes) before starting anew. Only a process that is a redis-server is touched.
 */
export async function stopStaleRedis(dir: string, log: (message: string) => void): Promise<void> {
  const pidFile = join(dir, 'redis.pid');
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return; // no earlier server left a pid file
  }
  const isRedis = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !isRedis()) return;
  log(`stopping redis-server ${pid} left running by an earlier start`);
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; isRedis() && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (isRedis()) process.kill(pid, 'SIGKILL');
}
