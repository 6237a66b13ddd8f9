import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@readpack/testing';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A process a test started, with its output kept for failure messages and log assertions. */
export interface ServiceProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<Exit>;
  /** Complete stdout lines so far. */
  stdoutLines(): string[];
  /** The last `max` characters of stdout and stderr, for an assertion message. */
  outputTail(max?: number): string;
  /** Sends `signal`, waits for the exit; SIGKILL after `timeoutMs`. Safe to call after it exited. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

/** The built entry point of an app (tests run what production runs; `npx tsc -b` first). */
export function builtScript(relativePath: string): string {
  const path = join(repoRoot(), relativePath);
  if (!existsSync(path)) throw new Error(`${relativePath} is missing: run \`npx tsc -b\` before the multi-process tests`);
  return path;
}

const MAX_KEPT_CHARS = 256 * 1024;

export async function startProcess(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<ServiceProcess> {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd ?? repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const keep = (text: string) => (text.length > MAX_KEPT_CHARS ? text.slice(-MAX_KEPT_CHARS) : text);
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout = keep(stdout + chunk)));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = keep(stderr + chunk)));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  const pid = child.pid!;
  return {
    pid,
    child,
    exited,
    stdoutLines: () => stdout.split('\n').slice(0, -1),
    outputTail: (max = 4_000) => `--- ${command} ${args.join(' ')} (pid ${pid}) stdout:\n${stdout.slice(-max)}\n--- stderr:\n${stderr.slice(-max)}`,
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Parses the JSON log lines of a process (winston, one object per line); other lines are skipped. */
export function jsonLines(lines: string[]): Record<string, unknown>[] {
  const parsed: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      parsed.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line interleaved with another process's output: not a log record we can use.
    }
  }
  return parsed;
}
