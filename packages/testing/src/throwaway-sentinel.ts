import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ThrowawayRedis, freePort, ping } from './throwaway-redis.js';

const MASTER_NAME = 'mymaster';
const QUORUM = 2;
const READY_TIMEOUT_MS = 20_000;

export interface ThrowawaySentinelOptions {
  /** How long a silent primary takes to be judged down (sentinel `down-after-milliseconds`). Default 1000. */
  downAfterMs?: number;
  /** sentinel `failover-timeout`. Default 5000. */
  failoverTimeoutMs?: number;
}

/**
 * A Redis Sentinel deployment of the caller's own on loopback: one primary, one replica and three
 * sentinels (quorum 2), from Debian's `redis-server` and `redis-sentinel`. For tests of failover:
 * `killPrimary()` crashes the current primary, `waitForFailover()` resolves when the sentinels name
 * another. Clients connect with `url` (`redis+sentinel://…?name=mymaster`), as an operator would.
 */
export class ThrowawaySentinel {
  private constructor(
    private readonly dir: string,
    readonly servers: ThrowawayRedis[],
    private readonly sentinels: { port: number; child: ChildProcess }[],
  ) {}

  static async start(options: ThrowawaySentinelOptions = {}): Promise<ThrowawaySentinel> {
    const dir = mkdtempSync(join(tmpdir(), 'readpack-sentinel-'));
    const servers: ThrowawayRedis[] = [];
    const sentinels: { port: number; child: ChildProcess }[] = [];
    const deployment = new ThrowawaySentinel(dir, servers, sentinels);
    try {
      for (const name of ['primary', 'replica']) mkdirSync(join(dir, name));
      const primary = await ThrowawayRedis.start({ dir: join(dir, 'primary'), stdio: 'ignore' });
      servers.push(primary);
      // min-replicas-to-write stays 0: the test kills the primary, not the replica.
      servers.push(await ThrowawayRedis.start({ dir: join(dir, 'replica'), stdio: 'ignore', extraArgs: ['--replicaof', '127.0.0.1', String(primary.port)] }));
      await waitUntil(async () => (await info(servers[1]!.port, 'replication')).includes('master_link_status:up'), 'replica in sync');
      for (let i = 0; i < 3; i += 1) {
        const port = await freePort();
        // Sentinel rewrites its configuration file with what it learns: one writable file each.
        const conf = join(dir, `sentinel-${i}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `dir ${dir}`,
            `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${primary.port} ${QUORUM}`,
            `sentinel down-after-milliseconds ${MASTER_NAME} ${options.downAfterMs ?? 1_000}`,
            `sentinel failover-timeout ${MASTER_NAME} ${options.failoverTimeoutMs ?? 5_000}`,
            `sentinel parallel-syncs ${MASTER_NAME} 1`,
            '',
          ].join('\n'),
        );
        const child = spawn('redis-sentinel', [conf], { stdio: 'ignore' });
        await new Promise<void>((resolve, reject) => {
          child.once('spawn', resolve);
          child.once('error', (error) => reject(new Error(`could not start redis-sentinel (${error.message}); run: apt-get update && apt-get install -y redis-sentinel`)));
        });
        sentinels.push({ port, child });
        await waitUntil(() => ping(port), `sentinel on port ${port}`);
      }
      // Every sentinel knows the replica and the other sentinels before the test may kill anything.
      await waitUntil(async () => {
        const views = await Promise.all(sentinels.map(({ port }) => sentinelCommand(port, ['SENTINEL', 'MASTER', MASTER_NAME])));
        return views.every((flat) => {
          const view = toRecord(flat);
          return Number(view['num-slaves']) >= 1 && Number(view['num-other-sentinels']) >= 2;
        });
      }, 'sentinels agreeing on the deployment');
      return deployment;
    } catch (error) {
      await deployment.dispose();
      throw error;
    }
  }

  get url(): string {
    return `redis+sentinel://${this.sentinels.map(({ port }) => `127.0.0.1:${port}`).join(',')}?name=${MASTER_NAME}`;
  }

  /** The port of the server the sentinels name as primary now. */
  async primaryPort(): Promise<number> {
    const reply = (await sentinelCommand(this.sentinels[0]!.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME])) as string[];
    return Number(reply[1]);
  }

  /** SIGKILLs the current primary; returns its port. */
  async killPrimary(): Promise<number> {
    const port = await this.primaryPort();
    const server = this.servers.find((s) => s.port === port);
    if (!server) throw new Error(`primary on port ${port} is not one of this deployment's servers`);
    await server.kill('SIGKILL');
    return port;
  }

  /** Resolves when the sentinels name a primary other than `oldPort` and it accepts writes. */
  async waitForFailover(oldPort: number, timeoutMs = 30_000): Promise<number> {
    let port = oldPort;
    await waitUntil(
      async () => {
        port = await this.primaryPort();
        return port !== oldPort && (await info(port, 'replication')).includes('role:master');
      },
      'failover',
      timeoutMs,
    );
    return port;
  }

  async dispose(): Promise<void> {
    for (const { child } of this.sentinels) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    }
    for (const server of this.servers) await server.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function withClient<T>(port: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

function info(port: number, section: string): Promise<string> {
  return withClient(port, (redis) => redis.info(section));
}

function sentinelCommand(port: number, args: string[]): Promise<unknown> {
  return withClient(port, (redis) => redis.call(args[0]!, ...args.slice(1)));
}

function toRecord(flat: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error; // not up yet: asked again until the deadline, and reported then
    }
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`, { cause: lastError });
    await new Promise((r) => setTimeout(r, 100));
  }
}
