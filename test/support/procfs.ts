import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sep } from 'node:path';

/**
 * What the kernel says about processes (Linux /proc), for tests that must prove a process is gone
 * or find the ones a service started. Zombies count as gone: they run nothing and hold no port.
 */

export function isRunning(pid: number): boolean {
  try {
    // The state follows the parenthesised command name, which may itself contain spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // no such process
  }
}

export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return []; // gone
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined; // gone
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  args: string[];
}

/** Every live descendant of `root` (children, grandchildren…), not `root` itself. */
export function descendantsOf(root: number): ProcessInfo[] {
  const parents = new Map<number, number>();
  for (const pid of allPids()) {
    const ppid = parentOf(pid);
    if (ppid !== undefined) parents.set(pid, ppid);
  }
  const found: ProcessInfo[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parents) {
      if (ppid !== parent || !isRunning(pid)) continue;
      found.push({ pid, ppid, args: commandLine(pid) });
      frontier.push(pid);
    }
  }
  return found;
}

/**
 * Live processes whose environment holds `name=value`. A test gives every process it starts a
 * unique marker (its READPACK_PREFIX, its PM2_HOME), so this finds them even after their parent
 * died and they were re-parented — the processes a crashed test would otherwise leak.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  return allPids().filter((pid) => {
    if (pid === process.pid || !isRunning(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(needle);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/**
 * Live processes whose working directory is `dir` or inside it. For processes the environment
 * marker misses: redis-server rewrites its process title over its environment, but it runs in
 * its `--dir`, which a test puts under a temp dir of its own.
 */
export function processesWithCwdUnder(dir: string): number[] {
  return allPids().filter((pid) => {
    if (pid === process.pid || !isRunning(pid)) return false;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      return cwd === dir || cwd.startsWith(`${dir}${sep}`);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

export function killPids(pids: Iterable<number>, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone: exactly what we wanted.
    }
  }
}
