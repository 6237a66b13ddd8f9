import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The suite talks to a real Redis. Without REDIS_URL it starts a throwaway `redis-server` on a
 * free port (no persistence) and stops it in global-teardown.ts. Every test still uses its own
 * key prefix and queue names, so an external REDIS_URL is never cleared wholesale.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'readpack-test-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--maxmemory-policy', 'noeviction', '--hash-max-listpack-value', '1024', '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'inherit'], detached: false },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`could not start redis-server (${err.message}); run: apt-get update && apt-get install -y redis-server`)));
    child.once('spawn', () => resolve());
  });
  await waitForPort(port, 10_000);
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  (globalThis as Record<string, unknown>).__readpackTestRedis = child;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.end(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
