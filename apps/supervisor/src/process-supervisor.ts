import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { RESTART_BACKOFF, RestartBackoff, type BackoffPolicy } from '@readpack/config';

/** One long-running process to keep alive. Nothing here is specific to what the process does. */
export interface ProcessSpec {
  /** Unique among the processes of one supervisor; used in logs and events. */
  name: string;
  command: string;
  args?: readonly string[];
  /** The complete environment of the child (not merged with the supervisor's). Default: the supervisor's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: 'inherit' | 'ignore';
  /**
   * Adds an IPC channel: the child sees it close (`disconnect`) when the supervisor dies, even by
   * SIGKILL, and can stop instead of running on as an orphan nobody supervises.
   */
  ipc?: boolean;
  /**
   * `always` (default) restarts after any exit, like PM2: a long-running service that exits with 0
   * has still stopped serving. `on-failure` leaves a clean exit (code 0, no signal) alone.
   */
  restart?: 'always' | 'on-failure' | 'never';
  /** Exit codes no restart can fix (say, EXIT_CONFIG_ERROR): the process is left stopped whatever `restart` says. */
  finalExitCodes?: readonly number[];
  /**
   * Shutdown runs phase by phase in ascending order; a phase starts only once every process of the
   * previous one has exited, so a dependency (say, a database) can outlive the processes draining
   * into it. Default 0.
   */
  stopPhase?: number;
  /** Sent first on shutdown. Default SIGTERM. */
  stopSignal?: NodeJS.Signals;
  /** How long after `stopSignal` the process group is SIGKILLed. Default: the supervisor's `stopTimeoutMs`. */
  stopTimeoutMs?: number;
}

/** The policy lives with the API cluster's in @readpack/config: one set of constants for both. */
export { RESTART_BACKOFF as DEFAULT_BACKOFF, restartDelay, type BackoffPolicy } from '@readpack/config';

/** Structurally compatible with winston and console-like loggers. */
export interface SupervisorLogger {
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
}

export interface SupervisorOptions {
  backoff?: Partial<BackoffPolicy>;
  /** Default grace between the stop signal and SIGKILL. */
  stopTimeoutMs?: number;
  logger?: SupervisorLogger;
  /**
   * Run each child in a process group of its own (default true). A terminal's Ctrl-C signals the
   * whole foreground group at once; children outside it hear only the supervisor, which then stops
   * them in phase order instead of all together. It also lets SIGKILL reach a child's own children.
   */
  ownProcessGroups?: boolean;
}

export interface SpawnEvent { name: string; pid: number; restarts: number }
export interface ExitEvent {
  name: string;
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  uptimeMs: number;
  /** Set when a restart is scheduled. */
  restartInMs: number | undefined;
  /** The spawn itself failed (e.g. ENOENT); the process never ran. */
  error: Error | undefined;
}

interface SupervisorEvents {
  spawn: [SpawnEvent];
  exit: [ExitEvent];
}

export interface ProcessSnapshot {
  name: string;
  pid: number | undefined;
  restarts: number;
  state: 'running' | 'waiting' | 'stopped';
}

interface Managed {
  spec: ProcessSpec;
  child: ChildProcess | undefined;
  startedAt: number;
  backoff: RestartBackoff;
  restarts: number;
  timer: NodeJS.Timeout | undefined;
  onExit: (() => void)[];
}

const silentLogger: SupervisorLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Last resort after SIGKILL: only a process stuck in uninterruptible I/O outlives this. */
const KILL_WAIT_MS = 5_000;

/**
 * Keeps a set of child processes running (restart with exponential backoff, as PM2 does) and
 * stops them in phases on request. Child output is inherited, so their logs stay theirs.
 */
export class ProcessSupervisor extends EventEmitter<SupervisorEvents> {
  private readonly processes = new Map<string, Managed>();
  private readonly backoff: BackoffPolicy;
  private readonly stopTimeoutMs: number;
  private readonly logger: SupervisorLogger;
  private readonly ownProcessGroups: boolean;
  private stopping: Promise<void> | undefined;

  constructor(options: SupervisorOptions = {}) {
    super();
    this.backoff = { ...RESTART_BACKOFF, ...options.backoff };
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    this.logger = options.logger ?? silentLogger;
    this.ownProcessGroups = options.ownProcessGroups ?? true;
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  start(spec: ProcessSpec): void {
    if (this.stopping) throw new Error(`cannot start ${spec.name}: the supervisor is stopping`);
    if (this.processes.has(spec.name)) throw new Error(`a process named ${spec.name} is already supervised`);
    const managed: Managed = { spec, child: undefined, startedAt: 0, backoff: new RestartBackoff(this.backoff), restarts: 0, timer: undefined, onExit: [] };
    this.processes.set(spec.name, managed);
    this.spawn(managed);
  }

  list(): ProcessSnapshot[] {
    return [...this.processes.values()].map((m) => ({
      name: m.spec.name,
      pid: m.child?.pid,
      restarts: m.restarts,
      state: m.child ? 'running' : m.timer ? 'waiting' : 'stopped',
    }));
  }

  pidOf(name: string): number | undefined {
    return this.processes.get(name)?.child?.pid;
  }

  /**
   * Stops restarting, then stops phase by phase: stop signal, up to `stopTimeoutMs`, then SIGKILL
   * to the child's whole process group. Idempotent; resolves once every child has exited.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  /** Immediate SIGKILL of everything (a second Ctrl-C, or the supervisor itself going down). Synchronous. */
  kill(): void {
    this.stopping ??= Promise.resolve();
    for (const managed of this.processes.values()) {
      this.cancelRestart(managed);
      if (managed.child) this.signalGroup(managed.child, 'SIGKILL');
    }
  }

  private spawn(managed: Managed): void {
    const { spec } = managed;
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args ?? [], {
        env: spec.env ?? process.env,
        cwd: spec.cwd,
        stdio: spec.ipc ? [spec.stdio ?? 'inherit', spec.stdio ?? 'inherit', spec.stdio ?? 'inherit', 'ipc'] : (spec.stdio ?? 'inherit'),
        detached: this.ownProcessGroups,
      });
    } catch (err) {
      // Synchronous spawn errors (bad arguments) are as fatal to this child as an asynchronous ENOENT.
      managed.startedAt = Date.now();
      this.handleExit(managed, undefined, null, null, err instanceof Error ? err : new Error(String(err)));
      return;
    }
    managed.child = child;
    managed.startedAt = Date.now();
    let gone = false;
    const done = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (gone) return;
      gone = true;
      this.handleExit(managed, child, code, signal, error);
    };
    child.once('spawn', () => {
      const pid = child.pid ?? -1;
      this.logger.info('process started', { process: spec.name, childPid: pid, restarts: managed.restarts });
      this.emit('spawn', { name: spec.name, pid, restarts: managed.restarts });
    });
    child.on('error', (err) => {
      // Without a pid the process never started and no 'exit' may follow; with one, this is a
      // failed kill() or similar and the process is still ours to watch.
      if (child.pid === undefined) done(null, null, err);
      else this.logger.warn('child process error', { process: spec.name, childPid: child.pid, error: err.message });
    });
    child.once('exit', (code, signal) => done(code, signal));
  }

  private handleExit(
    managed: Managed,
    child: ChildProcess | undefined,
    code: number | null,
    signal: NodeJS.Signals | null,
    error: Error | undefined,
  ): void {
    const { spec } = managed;
    const pid = child?.pid;
    const uptimeMs = Date.now() - managed.startedAt;
    if (managed.child === child) managed.child = undefined;
    // The group may still hold the child's own children (orphans of a crashed leader); a restart
    // must not race its leftovers for ports or files.
    if (child?.pid !== undefined && this.ownProcessGroups) this.signalGroup(child, 'SIGKILL', false);
    const waiters = managed.onExit.splice(0);
    for (const resolve of waiters) resolve();

    let restartInMs: number | undefined;
    if (!this.stopping && this.wantsRestart(spec, code, signal)) {
      restartInMs = managed.backoff.next(uptimeMs);
      managed.timer = setTimeout(() => {
        managed.timer = undefined;
        if (this.stopping) return;
        managed.restarts += 1;
        this.spawn(managed);
      }, restartInMs);
    }
    const meta = { process: spec.name, childPid: pid, code, signal, uptimeMs, restartInMs, error: error?.message };
    if (this.stopping) this.logger.info('process exited', meta);
    else if (restartInMs !== undefined) this.logger.warn('process exited unexpectedly; restarting', meta);
    else this.logger.warn('process exited; not restarting', meta);
    this.emit('exit', { name: spec.name, pid, code, signal, uptimeMs, restartInMs, error });
  }

  private wantsRestart(spec: ProcessSpec, code: number | null, signal: NodeJS.Signals | null): boolean {
    if (code !== null && spec.finalExitCodes?.includes(code)) return false;
    switch (spec.restart ?? 'always') {
      case 'always':
        return true;
      case 'on-failure':
        return code !== 0 || signal !== null;
      case 'never':
        return false;
    }
  }

  private async stopAll(): Promise<void> {
    for (const managed of this.processes.values()) this.cancelRestart(managed);
    const phases = [...new Set([...this.processes.values()].map((m) => m.spec.stopPhase ?? 0))].sort((a, b) => a - b);
    for (const phase of phases) {
      const members = [...this.processes.values()].filter((m) => (m.spec.stopPhase ?? 0) === phase);
      await Promise.all(members.map((m) => this.stopOne(m)));
    }
  }

  private async stopOne(managed: Managed): Promise<void> {
    const child = managed.child;
    if (!child) return;
    const { spec } = managed;
    const stopSignal = spec.stopSignal ?? 'SIGTERM';
    const timeoutMs = spec.stopTimeoutMs ?? this.stopTimeoutMs;
    this.logger.info('stopping process', { process: spec.name, childPid: child.pid, signal: stopSignal, timeoutMs });
    // Only the leader gets the polite signal: it decides how to wind down its own children.
    try {
      child.kill(stopSignal);
    } catch {
      // Already gone: the exit wait below returns at once.
    }
    if (await this.waitForExit(managed, timeoutMs)) return;
    this.logger.warn('process ignored the stop signal; killing it', { process: spec.name, childPid: child.pid, timeoutMs });
    this.signalGroup(child, 'SIGKILL');
    if (!(await this.waitForExit(managed, KILL_WAIT_MS))) {
      this.logger.error('process survived SIGKILL', { process: spec.name, childPid: child.pid });
    }
  }

  private waitForExit(managed: Managed, timeoutMs: number): Promise<boolean> {
    if (!managed.child) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        managed.onExit = managed.onExit.filter((w) => w !== onExit);
        resolve(false);
      }, timeoutMs);
      const onExit = () => {
        clearTimeout(timer);
        resolve(true);
      };
      managed.onExit.push(onExit);
    });
  }

  private cancelRestart(managed: Managed): void {
    if (managed.timer) clearTimeout(managed.timer);
    managed.timer = undefined;
  }

  private signalGroup(child: ChildProcess, signal: NodeJS.Signals, includeLeader = true): void {
    const pid = child.pid;
    if (pid === undefined) return;
    if (this.ownProcessGroups) {
      try {
        process.kill(-pid, signal);
        return;
      } catch {
        // ESRCH: the group is empty. Fall through for the leader (a zombie not yet reaped is harmless).
      }
    }
    if (includeLeader && child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(signal);
      } catch {
        // It exited between the check and the kill; the 'exit' handler takes it from here.
      }
    }
  }
}
