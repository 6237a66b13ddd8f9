import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One group's private link: a veth pair, the host end on the host, the other end in the namespace. */
export interface NamespaceLink {
  group: string;
  namespace: string;
  hostDevice: string;
  /** The host end's address: what processes in the namespace connect to. */
  hostAddress: string;
  /** The namespace end's address. */
  peerAddress: string;
}

/** The /24 the sandbox takes its /30 links from: private, and unlikely to be in use (checked anyway). */
const NETWORK = '10.231';
const GROUP = /^[a-z]$/;
/** Namespace names are files under /run/netns: long enough to carry the creator's pid. */
const NAMESPACE = (prefix: string) => new RegExp(`^${prefix}-(\\d+)-[0-9a-f]{6}-[a-z]$`);

/**
 * Network namespaces standing for other hosts (`ip netns`, root only): each group gets a
 * namespace of its own joined to the host by a veth pair with a private /30, and nothing else —
 * no route out, so the host's addresses on those links are all a process inside can reach.
 * `cut()` takes the host end down, which severs every connection of the group at once (Redis,
 * object storage, anything) without the processes noticing a reset: what a host whose network
 * failed looks like from both sides.
 */
export class NetnsSandbox {
  private constructor(
    private readonly links: ReadonlyMap<string, NamespaceLink>,
  ) {}

  /**
   * Creates one namespace per group (single lower-case letters), named
   * `<prefix>-<pid>-<random>-<group>`. Removes first what crashed runs with the same prefix
   * left behind: namespaces whose creating process is gone (a live one may be another run).
   */
  static async create(prefix: string, groups: readonly string[]): Promise<NetnsSandbox> {
    if (!/^[a-z]{2,5}$/.test(prefix)) throw new Error(`netns prefix ${prefix}: 2 to 5 lower-case letters (interface names have 15 characters)`);
    for (const group of groups) if (!GROUP.test(group)) throw new Error(`netns group ${group}: one lower-case letter`);
    await removeLeftovers(prefix);
    const id = randomBytes(3).toString('hex');
    const subnet = await freeSubnet(groups.length);
    const links = new Map<string, NamespaceLink>();
    const sandbox = new NetnsSandbox(links);
    try {
      for (const [i, group] of groups.entries()) {
        const link: NamespaceLink = {
          group,
          namespace: `${prefix}-${process.pid}-${id}-${group}`,
          hostDevice: `${prefix}${id}${group}h`,
          hostAddress: `${NETWORK}.${subnet}.${i * 4 + 1}`,
          peerAddress: `${NETWORK}.${subnet}.${i * 4 + 2}`,
        };
        links.set(group, link);
        await addLink(link);
      }
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
    return sandbox;
  }

  link(group: string): NamespaceLink {
    const link = this.links.get(group);
    if (!link) throw new Error(`no netns group ${group}`);
    return link;
  }

  /** Every group's host-side address (for servers that must listen on them). */
  hostAddresses(): string[] {
    return [...this.links.values()].map((l) => l.hostAddress);
  }

  /** The command line that runs `argv` inside a group's namespace (`ip netns exec` keeps the pid). */
  commandIn(group: string, argv: readonly string[]): { command: string; args: string[] } {
    return { command: 'ip', args: ['netns', 'exec', this.link(group).namespace, ...argv] };
  }

  /** Takes the host end of the group's link down: nothing in the namespace reaches the host, or the reverse. */
  async cut(group: string): Promise<void> {
    await run('ip', ['link', 'set', this.link(group).hostDevice, 'down']);
  }

  async restore(group: string): Promise<void> {
    await run('ip', ['link', 'set', this.link(group).hostDevice, 'up']);
  }

  /**
   * Whether a TCP connection from inside the group's namespace to `address:port` opens within
   * `timeoutMs` (a process of its own in the namespace, so the answer is the network's, not ours).
   */
  async canConnect(group: string, address: string, port: number, timeoutMs = 2_000): Promise<boolean> {
    const probe = `const s = require('node:net').connect(${port}, ${JSON.stringify(address)}); s.setTimeout(${timeoutMs}, () => process.exit(2)); s.on('connect', () => process.exit(0)); s.on('error', () => process.exit(1));`;
    const { command, args } = this.commandIn(group, [process.execPath, '-e', probe]);
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(command, args, { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    return code === 0;
  }

  /** Deletes every namespace (which deletes its veth pair, both ends). Safe to call twice. */
  async dispose(): Promise<void> {
    const existing = new Set(await namespaces());
    for (const link of this.links.values()) {
      if (existing.has(link.namespace)) await run('ip', ['netns', 'del', link.namespace]);
    }
  }
}

async function addLink(link: NamespaceLink): Promise<void> {
  const peerDevice = `${link.hostDevice.slice(0, -1)}n`;
  await run('ip', ['netns', 'add', link.namespace]);
  // The peer is created inside the namespace: no moment where both ends sit on the host.
  await run('ip', ['link', 'add', link.hostDevice, 'type', 'veth', 'peer', 'name', peerDevice, 'netns', link.namespace]);
  await run('ip', ['addr', 'add', `${link.hostAddress}/30`, 'dev', link.hostDevice]);
  await run('ip', ['link', 'set', link.hostDevice, 'up']);
  const inside = (argv: string[]) => run('ip', ['netns', 'exec', link.namespace, 'ip', ...argv]);
  await inside(['addr', 'add', `${link.peerAddress}/30`, 'dev', peerDevice]);
  await inside(['link', 'set', peerDevice, 'up']);
  await inside(['link', 'set', 'lo', 'up']);
}

async function namespaces(): Promise<string[]> {
  const { stdout } = await run('ip', ['netns', 'list']);
  // `name (id: 3)` or just `name`, one a line.
  return stdout.split('\n').map((line) => line.split(' ')[0]!).filter((name) => name !== '');
}

async function removeLeftovers(prefix: string): Promise<void> {
  const pattern = NAMESPACE(prefix);
  for (const name of await namespaces()) {
    const pid = pattern.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) await run('ip', ['netns', 'del', name]);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A third octet under 10.231 with no address or route of this host in it (`count` /30s needed). */
async function freeSubnet(count: number): Promise<number> {
  if (count > 64) throw new Error('at most 64 groups fit in one /24');
  const [{ stdout: addrs }, { stdout: routes }] = await Promise.all([run('ip', ['-4', '-o', 'addr']), run('ip', ['-4', 'route'])]);
  const used = new Set([...`${addrs}\n${routes}`.matchAll(/\b10\.231\.(\d+)\./g)].map((m) => Number(m[1])));
  for (let attempt = 0; attempt < 32; attempt += 1) {
    const candidate = randomInt(1, 255);
    if (!used.has(candidate)) return candidate;
  }
  throw new Error(`no free /24 under ${NETWORK}.0.0/16`);
}
