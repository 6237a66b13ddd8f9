import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@readpack/testing';
import { killPids, processesWithEnv } from './procfs.js';

const run = promisify(execFile);

export interface Pm2Process {
  /** pm2's own id (pm_id), as its daemon log names apps: `[name:id]`. */
  id: number;
  name: string;
  pid: number;
  status: string;
  execMode: string;
  restarts: number;
}

interface JlistEntry {
  pm_id: number;
  name: string;
  pid: number;
  pm2_env: { status: string; exec_mode: string; restart_time: number };
}

/**
 * The project's own pm2 (node_modules/.bin) with a PM2_HOME of its own: its daemon, sockets and
 * logs live in a temp dir, so a test never sees or touches a user's pm2.
 */
export class Pm2 {
  private constructor(readonly home: string) {}

  static async create(): Promise<Pm2> {
    return new Pm2(await mkdtemp(join(tmpdir(), 'readpack-pm2-')));
  }

  /** Runs a pm2 command; `env` is the whole environment of the CLI (and so of a daemon it spawns). */
  async run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
    const cli = join(repoRoot(), 'node_modules', '.bin', 'pm2');
    const { stdout } = await run(process.execPath, [cli, ...args], {
      cwd: repoRoot(),
      env: { ...env, PM2_HOME: this.home },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  }

  async list(): Promise<Pm2Process[]> {
    const stdout = await this.run(['jlist']);
    const entries = JSON.parse(stdout.slice(stdout.indexOf('['))) as JlistEntry[];
    return entries.map((e) => ({ id: e.pm_id, name: e.name, pid: e.pid, status: e.pm2_env.status, execMode: e.pm2_env.exec_mode, restarts: e.pm2_env.restart_time }));
  }

  /** The daemon's own log: starts, restarts, and how each app exited. */
  async daemonLog(): Promise<string> {
    return readFile(join(this.home, 'pm2.log'), 'utf8').catch(() => '');
  }

  /** The tail of every app log pm2 kept, for a failure message. */
  async logs(maxPerFile = 3_000): Promise<string> {
    const dir = join(this.home, 'logs');
    const files = await readdir(dir).catch(() => [] as string[]);
    const parts = await Promise.all(files.map(async (f) => `--- pm2 ${f}:\n${(await readFile(join(dir, f), 'utf8')).slice(-maxPerFile)}`));
    return parts.join('\n');
  }

  /**
   * `pm2 kill` (stops every app, then the daemon), then SIGKILL for anything that still carries
   * this PM2_HOME (a daemon that did not answer), then the directory. Never throws: it runs in
   * afterAll, after a failure as much as after a success.
   */
  async kill(): Promise<void> {
    await this.run(['kill']).catch(() => undefined);
    killPids(processesWithEnv('PM2_HOME', this.home));
    await rm(this.home, { recursive: true, force: true });
  }
}
