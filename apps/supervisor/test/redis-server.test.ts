import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquirePidLock } from '../src/pid-lock.js';
import { ProcessSupervisor, type SpawnEvent } from '../src/process-supervisor.js';
import {
  ensureRedisServer,
  findExecutable,
  findFreePort,
  installCommand,
  pingRedis,
  privateRedisArgs,
  privateRedisSpec,
  stopStaleRedis,
  waitForRedis,
} from '../src/redis-server.js';
import { spawn } from 'node:child_process';
import { waitFor } from '@readpack/testing';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'readpack-redis-test-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function redisBinary(): string {
  const binary = findExecutable('redis-server');
  if (!binary) throw new Error(`redis-server is not installed: ${installCommand(process.getuid?.() === 0)}`);
  return binary;
}

/** One command, one reply, over raw RESP: enough for SET/GET without a client library. */
function command(port: number, ...args: string[]): Promise<string | null> {
  const request = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let buffer = '';
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.once('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\r\n');
      if (end < 0) return;
      const head = buffer.slice(0, end);
      const done = (value: string | null) => {
        socket.destroy();
        resolve(value);
      };
      if (head.startsWith('+') || head.startsWith(':')) return done(head.slice(1));
      if (head.startsWith('-')) {
        socket.destroy();
        return reject(new Error(head.slice(1)));
      }
      const length = Number(head.slice(1));
      if (length < 0) return done(null);
      if (buffer.length >= end + 2 + length + 2) done(buffer.slice(end + 2, end + 2 + length));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startRedis(dir: string, port: number) {
  const supervisor = new ProcessSupervisor({ backoff: { initialDelayMs: 50, maxDelayMs: 50 } });
  cleanups.push(() => supervisor.stop());
  const spawns: SpawnEvent[] = [];
  supervisor.on('spawn', (e) => spawns.push(e));
  supervisor.start(privateRedisSpec({ binary: redisBinary(), port, dir, stdio: 'ignore' }));
  await waitForRedis(port, { timeoutMs: 10_000 });
  return { supervisor, spawns, pid: supervisor.pidOf('redis')! };
}

describe('private redis-server', () => {
  it('keeps its data in the AOF across a restart and leaves no process behind', async () => {
    const dir = join(tempDir(), 'redis');
    const port = await findFreePort();

    const first = await startRedis(dir, port);
    expect(await command(port, 'SET', 'readpack:test:key', 'survives')).toBe('OK');
    await first.supervisor.stop();
    expect(isAlive(first.pid)).toBe(false);
    expect(await pingRedis(port)).toBe(false);
    expect(readdirSync(dir)).toContain('appendonlydir');

    const second = await startRedis(dir, port);
    expect(second.pid).not.toBe(first.pid);
    expect(await command(port, 'GET', 'readpack:test:key')).toBe('survives');
    await second.supervisor.stop();
    expect(isAlive(second.pid)).toBe(false);
  });

  it('comes back on the same port with its data after a crash', async () => {
    const dir = join(tempDir(), 'redis');
    const port = await findFreePort();
    const { supervisor, spawns, pid } = await startRedis(dir, port);
    expect(await command(port, 'SET', 'readpack:test:crash', 'still here')).toBe('OK');

    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (spawns.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(spawns).toHaveLength(2);
    await waitForRedis(port, { timeoutMs: 10_000 });
    expect(await command(port, 'GET', 'readpack:test:crash')).toBe('still here');
    await supervisor.stop();
  });

  it('runs loopback-only with AOF everysec, noeviction and no RDB snapshots', () => {
    const args = privateRedisArgs(6390, '/tmp/x');
    const flags = Object.fromEntries(args.flatMap((a, i) => (a.startsWith('--') ? [[a, args[i + 1]]] : [])));
    expect(flags).toEqual({
      '--bind': '127.0.0.1',
      '--port': '6390',
      '--dir': '/tmp/x',
      '--appendonly': 'yes',
      '--appendfsync': 'everysec',
      '--maxmemory-policy': 'noeviction',
      '--save': '',
      '--daemonize': 'no',
      '--hash-max-listpack-value': '1024',
      '--pidfile': '/tmp/x/redis.pid',
    });
  });

  it('stops a redis-server that an earlier start left running on the same directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readpack-stale-redis-'));
    const port = await findFreePort();
    const stale = spawn('redis-server', privateRedisArgs(port, dir), { stdio: 'ignore' });
    try {
      await waitForRedis(port, { timeoutMs: 10_000 });
      await waitFor(async () => (existsSync(join(dir, 'redis.pid')) ? true : undefined), { what: 'the pid file' });
      const exited = new Promise((r) => stale.once('exit', r));
      await stopStaleRedis(dir, () => undefined);
      await exited;
      expect(await pingRedis(port)).toBe(false);
    } finally {
      stale.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pingRedis is false when nothing listens', async () => {
    expect(await pingRedis(await findFreePort(), '127.0.0.1', 500)).toBe(false);
  });
});

describe('ensureRedisServer', () => {
  const noRun = () => Promise.reject(new Error('must not run anything'));

  it('uses an installed binary as is', async () => {
    const result = await ensureRedisServer({ find: (n) => (n === 'redis-server' ? '/usr/bin/redis-server' : undefined), run: noRun });
    expect(result).toEqual({ ok: true, binary: '/usr/bin/redis-server', installed: false });
  });

  it('asks a non-root user to run the install with sudo', async () => {
    const result = await ensureRedisServer({ isRoot: false, find: (n) => (n === 'apt-get' ? '/usr/bin/apt-get' : undefined), run: noRun });
    expect(result).toMatchObject({ ok: false, command: 'sudo apt-get update && sudo apt-get install -y --no-install-recommends redis-server' });
  });

  it('asks root for the plain command when apt-get is missing', async () => {
    const result = await ensureRedisServer({ isRoot: true, find: () => undefined, run: noRun });
    expect(result).toMatchObject({ ok: false, command: 'apt-get update && apt-get install -y --no-install-recommends redis-server' });
  });

  it('installs with apt-get as root, non-interactively', async () => {
    const calls: { command: string; args: readonly string[]; frontend: string | undefined }[] = [];
    let installed = false;
    const result = await ensureRedisServer({
      isRoot: true,
      find: (n) => (n === 'apt-get' ? '/usr/bin/apt-get' : installed ? '/usr/bin/redis-server' : undefined),
      run: async (command, args, env) => {
        calls.push({ command, args, frontend: env.DEBIAN_FRONTEND });
        if (args[0] === 'install') installed = true;
        return 0;
      },
    });
    expect(calls).toEqual([
      { command: '/usr/bin/apt-get', args: ['update'], frontend: 'noninteractive' },
      { command: '/usr/bin/apt-get', args: ['install', '-y', '--no-install-recommends', 'redis-server'], frontend: 'noninteractive' },
    ]);
    expect(result).toEqual({ ok: true, binary: '/usr/bin/redis-server', installed: true });
  });

  it('reports a failed apt-get with the command to run by hand', async () => {
    const result = await ensureRedisServer({ isRoot: true, find: (n) => (n === 'apt-get' ? '/usr/bin/apt-get' : undefined), run: async () => 100 });
    expect(result).toMatchObject({ ok: false, command: 'apt-get update && apt-get install -y --no-install-recommends redis-server', reason: expect.stringMatching(/apt-get update failed/) });
  });
});

describe('acquirePidLock', () => {
  it('is exclusive while the holder lives', () => {
    const file = join(tempDir(), 'supervisor.pid');
    // Our parent stands in for a second `npm start` that is still running.
    writeFileSync(file, `${process.ppid}\n`);
    expect(acquirePidLock(file)).toEqual({ acquired: false, heldBy: process.ppid });
  });

  it('takes over from a dead holder and releases its file', () => {
    const file = join(tempDir(), 'supervisor.pid');
    writeFileSync(file, '99999999\n'); // above any pid_max: never a live process
    const lock = acquirePidLock(file);
    expect(lock.acquired).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid}\n`);
    if (lock.acquired) lock.release();
    expect(existsSync(file)).toBe(false);
  });
});
