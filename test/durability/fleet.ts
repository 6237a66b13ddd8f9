import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, type Config, type Stage } from '@readpack/config';
import { secretKeyPath } from '@readpack/secrets';
import { serviceEnv } from '../support/env.js';
import { storageEnv } from '../support/s3rver.js';
import { builtScript, jsonLines, startProcess, type ServiceProcess } from '../support/service-process.js';

/**
 * Short leases so takeovers happen in seconds: worst case ≈ 2 s lock + 2 × 1 s stall check (a check
 * can miss BullMQ's guard key by a millisecond and wait a second interval; docs/benchmarks.md).
 */
export const FAST_LEASES = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' };

export type LogLine = Record<string, unknown>;

interface Member {
  stage: Stage;
  current: ServiceProcess;
  restarting: boolean;
}

/** A consumer that is up (not exited, not being replaced), with the stage it consumes. */
export interface RunningConsumer {
  stage: Stage;
  process: ServiceProcess;
}

/**
 * Consumer processes for one test, started from the built worker like production, sharing the
 * test's Redis prefix and DATA_DIR. `keepAlive` restarts a consumer that exits by itself, as the
 * supervisor (or PM2) would.
 */
export class ConsumerFleet {
  private readonly members: Member[] = [];
  private readonly retired: ServiceProcess[] = [];
  /** Every log line of every process, kept whole: ServiceProcess keeps only a tail of its output. */
  private readonly logLines = new Map<ServiceProcess, LogLine[]>();
  /** Replacements being spawned; `stop()` waits for them so none outlives the test. */
  private readonly spawning = new Set<Promise<unknown>>();
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** How many consumers keepAlive has replaced. */
  restarts = 0;

  constructor(
    private readonly config: Config,
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  /** With STORAGE=s3 each spawned consumer has a DATA_DIR of its own (removed by stop()). */
  private readonly ownDirs: string[] = [];

  private async dataDirFor(): Promise<string> {
    if (this.config.storage.kind !== 's3') return this.config.dataDir;
    const dir = await mkdtemp(join(tmpdir(), 'readpack-fleet-'));
    this.ownDirs.push(dir);
    await copyFile(secretKeyPath(this.config.dataDir), secretKeyPath(dir));
    return dir;
  }

  private async spawn(stage: Stage): Promise<ServiceProcess> {
    const env = serviceEnv({
      REDIS_URL: this.config.redis.url,
      READPACK_PREFIX: this.config.redis.prefix,
      DATA_DIR: await this.dataDirFor(),
      ...storageEnv(this.config),
      LOG_LEVEL: 'info',
      ...FAST_LEASES,
      ...this.extraEnv,
    });
    const started = await startProcess(process.execPath, [builtScript('apps/worker/dist/main.js'), stage], { env });
    this.collectLogs(started);
    return started;
  }

  /**
   * Parses stdout as it arrives. Attached as soon as the process has spawned: a Node process
   * needs far longer than that to load its modules and write its first line.
   */
  private collectLogs(proc: ServiceProcess): void {
    const lines: LogLine[] = [];
    this.logLines.set(proc, lines);
    let partial = '';
    proc.child.stdout!.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of jsonLines(parts)) lines.push(line);
    });
  }

  async start(stage: Stage, count = 1): Promise<ServiceProcess[]> {
    const started: ServiceProcess[] = [];
    for (let i = 0; i < count; i += 1) {
      const current = await this.spawn(stage);
      this.members.push({ stage, current, restarting: false });
      started.push(current);
    }
    return started;
  }

  async startAll(perStage = 1): Promise<void> {
    for (const stage of STAGES) await this.start(stage, perStage);
  }

  /** Restarts consumers that exited (checked every 200 ms) until `stop()`. */
  keepAlive(): void {
    this.keepAliveTimer = setInterval(() => {
      for (const member of this.members) {
        if (this.stopping || member.restarting || !hasExited(member.current)) continue;
        member.restarting = true;
        this.retired.push(member.current);
        const replacing = this.spawn(member.stage).then(
          (next) => {
            member.current = next;
            member.restarting = false;
            this.restarts += 1;
          },
          // A failed spawn leaves the member marked dead: the next tick tries again.
          () => {
            member.restarting = false;
          },
        );
        this.spawning.add(replacing);
        void replacing.finally(() => this.spawning.delete(replacing));
      }
    }, 200);
  }

  live(stage?: Stage): ServiceProcess[] {
    return this.members.filter((m) => !stage || m.stage === stage).map((m) => m.current);
  }

  /** Consumers that are up right now, each with its stage. */
  running(): RunningConsumer[] {
    return this.members.filter((m) => !m.restarting && !hasExited(m.current)).map((m) => ({ stage: m.stage, process: m.current }));
  }

  private all(): ServiceProcess[] {
    return [...this.retired, ...this.members.map((m) => m.current)];
  }

  /** The JSON log lines of one process this fleet started. */
  logsOf(proc: ServiceProcess): LogLine[] {
    return this.logLines.get(proc) ?? jsonLines(proc.stdoutLines());
  }

  /** Every JSON log line of every consumer this fleet ran, including ones that died. */
  logs(): LogLine[] {
    return this.all().flatMap((p) => this.logsOf(p));
  }

  /** The live consumer whose log says it started `stage` for `jobId`. */
  runnerOf(jobId: string, stage: Stage): ServiceProcess | undefined {
    return this.live(stage).find((p) => this.logsOf(p).some((l) => l.jobId === jobId && l.stage === stage && l.message === 'stage started'));
  }

  /** Pids of every process this fleet started, dead or alive. */
  pids(): number[] {
    return this.all().map((p) => p.pid);
  }

  outputTail(): string {
    return this.all()
      .map((p) => p.outputTail(1_500))
      .join('\n');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.keepAliveTimer);
    await Promise.all([...this.spawning]);
    await Promise.all(this.members.map((m) => m.current.stop('SIGTERM', 10_000)));
    // Stopped consumers stay in `logs()`: a test reads the complete logs after a graceful stop.
    this.retired.push(...this.members.map((m) => m.current));
    this.members.length = 0;
    for (const dir of this.ownDirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

function hasExited(proc: ServiceProcess): boolean {
  return proc.child.exitCode !== null || proc.child.signalCode !== null;
}
