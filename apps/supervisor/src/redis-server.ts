import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import type { ProcessSpec } from './process-supervisor.js';

/** Debian's own locations, searched even when PATH lacks them (sbin is often missing for non-root). */
const SYSTEM_DIRS = ['/usr/local/bin', '/usr/bin', '/usr/sbin', '/bin', '/sbin'];

export function installCommand(root: boolean): string {
  return root
    ? 'apt-get update && apt-get install -y redis-server'
    : 'sudo apt-get update && sudo apt-get install -y redis-server';
}

export function findExecutable(name: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  const dirs = [...(searchPath ?? '').split(delimiter).filter(Boolean), ...SYSTEM_DIRS];
  for (const dir of new Set(dirs)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here (or not executable): keep looking.
    }
  }
  return undefined;
}

export type EnsureRedisResult =
  | { ok: true; binary: string; installed: boolean }
  | { ok: false; command: string; reason: string };

export interface EnsureRedisOptions {
  isRoot?: boolean;
  find?: (name: string) => string | undefined;
  /** Runs a command with inherited stdio; resolves to its exit code. */
  run?: (command: string, args: readonly string[], env: NodeJS.ProcessEnv) => Promise<number | null>;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * Finds `redis-server`, installing it with apt-get when that is possible without asking anyone
 * (root on a Debian-like system). Otherwise reports the command a human has to run.
 */
export async function ensureRedisServer(options: EnsureRedisOptions = {}): Promise<EnsureRedisResult> {
  const find = options.find ?? ((name: string) => findExecutable(name));
  const root = options.isRoot ?? process.getuid?.() === 0;
  const existing = find('redis-server');
  if (existing) return { ok: true, binary: existing, installed: false };

  const command = installCommand(root);
  const aptGet = find('apt-get');
  if (!root || !aptGet) {
    return { ok: false, command, reason: root ? 'redis-server is not installed and apt-get is not available' : 'redis-server is not installed and installing it needs root' };
  }
  const run = options.run ?? ((cmd, args, env) => runInherited(cmd, args, env, options.signal));
  const env: NodeJS.ProcessEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  options.log?.(`redis-server is not installed; running: ${command}`);
  for (const args of [['update'], ['install', '-y', 'redis-server']]) {
    const code = await run(aptGet, args, env);
    if (code !== 0) return { ok: false, command, reason: `apt-get ${args.join(' ')} failed (exit code ${code})` };
  }
  const installed = find('redis-server');
  if (!installed) return { ok: false, command, reason: 'apt-get succeeded but redis-server is still not on PATH' };
  return { ok: true, binary: installed, installed: true };
}

function runInherited(command: string, args: readonly string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env, signal });
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code));
  });
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
    // listpack encoding, about half the memory of a hashtable.
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
