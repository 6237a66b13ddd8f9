import { findFreePort, waitForRedis } from '../../apps/supervisor/src/redis-server.js';
import { startProcess, type Exit, type ServiceProcess } from './service-process.js';

/**
 * A redis-server of one test's own, for tests that stop and restart Redis (never the suite's
 * shared one). AOF with fsync on every write, no RDB: what it acknowledged survives a restart on
 * the same port and directory.
 */
export class PrivateRedis {
  private process: ServiceProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(dir: string): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await findFreePort(), dir);
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts the server (again) on the same port and directory, and waits until it answers PING. */
  async restart(): Promise<void> {
    if (this.process) throw new Error('redis-server is already running');
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'yes',
      '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--loglevel', 'warning'];
    const child = await startProcess('redis-server', args, { env: process.env });
    this.process = child;
    try {
      await waitForRedis(this.port, { timeoutMs: 20_000 });
    } catch (error) {
      await this.stop();
      throw new Error(`${(error as Error).message}\n${child.outputTail()}`, { cause: error });
    }
  }

  /** SIGTERM (Redis flushes its AOF and exits), then waits for the exit. */
  async stop(): Promise<Exit | undefined> {
    const child = this.process;
    this.process = undefined;
    return child?.stop('SIGTERM', 15_000);
  }
}
