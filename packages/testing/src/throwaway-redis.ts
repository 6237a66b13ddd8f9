import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayRedisOptions {
  /** Its working directory. Default: a fresh temporary one, removed by `dispose()`. */
  dir?: string;
  /**
   * AOF with fsync on every write: what it acknowledged survives `stop()` + `restart()` on the same
   * port and directory (tests of Redis outages). Default false: no persistence at all.
   */
  durable?: boolean;
  /** More redis-server arguments; later ones win (`--hash-max-listpack-value 64` for Redis' default). */
  extraArgs?: readonly string[];
  /** Where its output goes. Default: stderr inherited (Redis logs warnings only), stdout dropped. */
  stdio?: 'inherit' | 'ignore';
}

export interface RedisExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const READY_TIMEOUT_MS = 20_000;
const KILL_AFTER_MS = 15_000;

/**
 * A redis-server of the caller's own on a free loopback port, for the test suite (global setup),
 * tests that stop and restart Redis, and the benches: the one place that knows how to start,
 * wait for and stop one. Configured like `npm start` runs Redis (noeviction, listpack values up to
 * 1024 bytes), minus persistence unless asked for.
 */
export class ThrowawayRedis {
  private child: ChildProcess | undefined;
  private exited: Promise<RedisExit> | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly ownsDir: boolean,
    private readonly options: ThrowawayRedisOptions,
  ) {}

  static async start(options: ThrowawayRedisOptions = {}): Promise<ThrowawayRedis> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'readpack-redis-'));
    const redis = new ThrowawayRedis(await freePort(), dir, options.dir === undefined, options);
    try {
      await redis.restart();
    } catch (error) {
      await redis.dispose();
      throw error;
    }
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts the server (again) on the same port and directory and waits until it answers PING. */
  async restart(): Promise<void> {
    if (this.child) throw new Error('redis-server is already running');
    const persistence = this.options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', ...persistence,
      '--maxmemory-policy', 'noeviction', '--hash-max-listpack-value', '1024', '--loglevel', 'warning', ...(this.options.extraArgs ?? [])];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', this.options.stdio ?? 'inherit'] });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`could not start redis-server (${error.message}); run: apt-get update && apt-get install -y redis-server`)));
    }).catch((error: unknown) => {
      this.child = undefined;
      throw error;
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await ping(this.port))) {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.child = undefined;
        throw new Error(`redis-server on port ${this.port} exited (code ${child.exitCode}) before answering PING`);
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`redis-server on port ${this.port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM (a durable Redis writes its AOF out first), SIGKILL if it lingers; resolves with its exit. */
  async stop(): Promise<RedisExit | undefined> {
    const child = this.child;
    const exited = this.exited;
    this.child = undefined;
    if (!child || !exited) return undefined;
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.kill('SIGTERM');
    const exit = await exited;
    clearTimeout(killer);
    return exit;
  }

  /** SIGKILL, as a crashed host would end it: no AOF rewrite, no goodbye to clients or to a cluster. */
  async kill(): Promise<RedisExit | undefined> {
    const child = this.child;
    const exited = this.exited;
    this.child = undefined;
    if (!child || !exited) return undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited;
  }

  /** Stops it and removes its directory when it made one. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** +PONG over raw TCP: no client library, and a server still loading its AOF (-LOADING) is not ready. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect(port, '127.0.0.1');
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), 1_000);
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}
