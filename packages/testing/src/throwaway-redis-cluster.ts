import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, ThrowawayRedis } from './throwaway-redis.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

/** Failure detection after this long without an answer; then the replica's election (a few seconds). */
const NODE_TIMEOUT_MS = 2_000;
const READY_TIMEOUT_MS = 30_000;

interface ClusterNode {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  /** Slot ranges [first, last] a primary serves. */
  slots: [number, number][];
}

/**
 * A Redis Cluster of the caller's own on loopback: three primaries with one replica each, every
 * node a redis-server (cluster mode, no persistence) in one temporary directory. Built with
 * `redis-cli --cluster create`, as an operator would; `killPrimaryOf` SIGKILLs the primary that
 * serves a key and waits for its replica to take over, the failover the scale tests run through.
 */
export class ThrowawayRedisCluster {
  private constructor(
    readonly dir: string,
    private readonly nodes: ThrowawayRedis[],
  ) {}

  static async start(): Promise<ThrowawayRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'readpack-redis-cluster-'));
    const nodes: ThrowawayRedis[] = [];
    const cluster = new ThrowawayRedisCluster(dir, nodes);
    try {
      for (let i = 0; i < 6; i += 1) {
        const nodeDir = join(dir, `node-${i}`);
        mkdirSync(nodeDir);
        // The bus port is chosen free too: the default (port + 10000) may be taken on a busy machine.
        // Validity factor 0: a replica always stands for election, however long its link was down
        // (a test may kill a primary moments after the replica synced).
        const args = ['--cluster-enabled', 'yes', '--cluster-port', String(await freePort()), '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
          '--cluster-config-file', 'nodes.conf', '--cluster-replica-validity-factor', '0'];
        nodes.push(await ThrowawayRedis.start({ dir: nodeDir, extraArgs: args, stdio: 'ignore' }));
      }
      await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes']);
      await cluster.waitUntilReplicated();
      await cluster.waitUntilHealthy();
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  /** A REDIS_URL naming every node as a seed, so a client can start while any one of them is down. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  }

  get ports(): number[] {
    return this.nodes.map((n) => n.port);
  }

  /** The port of the primary that serves `key`'s slot now. */
  async primaryOf(key: string): Promise<number> {
    const probe = this.liveNodes()[0];
    if (!probe) throw new Error('no node of the cluster is running');
    const slot = Number((await cli(probe.port, 'CLUSTER', 'KEYSLOT', key)).trim());
    const owner = (await this.topology()).find((n) => n.primary && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!owner) throw new Error(`no live primary serves slot ${slot}`);
    return owner.port;
  }

  /**
   * SIGKILLs the primary that serves `key`, then waits until another node serves its slots and
   * every live node reports `cluster_state:ok`. Returns both ports.
   */
  async killPrimaryOf(key: string): Promise<{ killed: number; promoted: number }> {
    const killed = await this.primaryOf(key);
    const node = this.nodes.find((n) => n.port === killed);
    if (!node) throw new Error(`port ${killed} is not a node of this cluster`);
    await node.kill();
    const promoted = await waitFor(
      async () => {
        const port = await this.primaryOf(key).catch(() => undefined);
        return port !== undefined && port !== killed ? port : undefined;
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200, what: `a replica to take over from the primary on port ${killed}` },
    );
    await this.waitUntilHealthy();
    return { killed, promoted };
  }

  /**
   * Takes `key`'s slot away from every node (CLUSTER DELSLOTS), so every node reports
   * `cluster_state:fail` and answers CLUSTERDOWN, as mid-failover, for as long as the caller
   * wants; the returned function gives the slot back to its primary and waits until the cluster
   * is healthy again. No node is killed, so no replica is used up.
   */
  async unserveSlotOf(key: string): Promise<() => Promise<void>> {
    const owner = await this.primaryOf(key);
    const probe = this.liveNodes()[0];
    if (!probe) throw new Error('no node of the cluster is running');
    const slot = (await cli(probe.port, 'CLUSTER', 'KEYSLOT', key)).trim();
    await Promise.all(this.liveNodes().map((n) => cliOk(n.port, 'CLUSTER', 'DELSLOTS', slot)));
    await waitFor(
      async () => {
        const states = await Promise.all(this.liveNodes().map((n) => cli(n.port, 'CLUSTER', 'INFO')));
        return states.every((info) => info.includes('cluster_state:fail')) ? true : undefined;
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 100, what: `cluster_state:fail on every node once slot ${slot} is unserved` },
    );
    return async () => {
      await cliOk(owner, 'CLUSTER', 'ADDSLOTS', slot);
      await this.waitUntilHealthy();
    };
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private liveNodes(): ThrowawayRedis[] {
    return this.nodes.filter((n) => n.running);
  }

  /**
   * Every live node reports `cluster_state:ok`, and every replica's link to its primary is up:
   * `--cluster create` returns before the replicas have synced, and an unsynced replica is no
   * failover target yet.
   */
  private async waitUntilHealthy(): Promise<void> {
    await waitFor(
      async () => {
        const live = this.liveNodes();
        const states = await Promise.all(live.map((n) => cli(n.port, 'CLUSTER', 'INFO').catch(() => '')));
        if (!states.every((info) => info.includes('cluster_state:ok'))) return undefined;
        const replication = await Promise.all(live.map((n) => cli(n.port, 'INFO', 'replication').catch(() => '')));
        const linksUp = replication.every((info) => !info.includes('role:slave') || info.includes('master_link_status:up'));
        return linksUp ? true : undefined;
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200, what: 'cluster_state:ok and replica links up on every live node' },
    );
  }

  /** Waits until the cluster has three primaries serving slots and a replica for each (after `--cluster create`). */
  private async waitUntilReplicated(): Promise<void> {
    await waitFor(
      async () => {
        const nodes = await this.topology();
        const primaries = nodes.filter((n) => n.primary && n.slots.length > 0).length;
        const replicas = nodes.filter((n) => !n.primary).length;
        return primaries === 3 && replicas === 3 ? true : undefined;
      },
      { timeoutMs: READY_TIMEOUT_MS, intervalMs: 200, what: 'three primaries with one replica each' },
    );
  }

  /** CLUSTER NODES as one live node sees it. */
  private async topology(): Promise<ClusterNode[]> {
    const probe = this.liveNodes()[0];
    if (!probe) throw new Error('no node of the cluster is running');
    return (await cli(probe.port, 'CLUSTER', 'NODES')).split('\n').filter(Boolean).map(parseNodeLine);
  }
}

/** `<id> <ip:port@bus> <flags> <primary> <ping> <pong> <epoch> <link> <slot ranges…>` */
function parseNodeLine(line: string): ClusterNode {
  const [id = '', address = '', flags = '', , , , , , ...ranges] = line.split(' ');
  const flagList = flags.split(',');
  return {
    id,
    port: Number(address.split('@')[0]?.split(':').pop()),
    primary: flagList.includes('master'),
    failed: flagList.includes('fail') || flagList.includes('fail?'),
    slots: ranges
      .filter((r) => !r.startsWith('['))
      .map((r) => {
        const [first = '', last = first] = r.split('-');
        return [Number(first), Number(last)];
      }),
  };
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 5_000 });
  return stdout;
}

/** redis-cli exits 0 on an error reply: a command whose only answer is OK is checked for it. */
async function cliOk(port: number, ...args: string[]): Promise<void> {
  const reply = (await cli(port, ...args)).trim();
  if (reply !== 'OK') throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${reply}`);
}
