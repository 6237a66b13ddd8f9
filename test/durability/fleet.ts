import { STAGES, type Config, type Stage } from '@readpack/config';
import { serviceEnv } from '../support/env.js';
import { builtScript, jsonLines, startProcess, type ServiceProcess } from '../support/service-process.js';

/** Short leases so takeovers happen in seconds: worst case ≈ 2 s lock + 1 s stall check. */
export const FAST_LEASES = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' };

interface Member {
  stage: Stage;
  current: ServiceProcess;
  restarting: boolean;
}

/**
 * Consumer processes for one test, started from the built worker like production, sharing the
 * test's Redis prefix and DATA_DIR. `keepAlive` restarts a consumer that exits by itself, as the
 * supervisor (or PM2) would.
 */
export class ConsumerFleet {
  private readonly members: Member[] = [];
  private readonly retired: ServiceProcess[] = [];
  private keepAliveTimer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly config: Config,
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  private spawn(stage: Stage): Promise<ServiceProcess> {
    const env = serviceEnv({
      REDIS_URL: this.config.redis.url,
      READPACK_PREFIX: this.config.redis.prefix,
      DATA_DIR: this.config.dataDir,
      LOG_LEVEL: 'info',
      ...FAST_LEASES,
      ...this.extraEnv,
    });
    return startProcess(process.execPath, [builtScript('apps/worker/dist/main.js'), stage], { env });
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
        const { child } = member.current;
        if (this.stopping || member.restarting || (child.exitCode === null && child.signalCode === null)) continue;
        member.restarting = true;
        this.retired.push(member.current);
        void this.spawn(member.stage).then((next) => {
          member.current = next;
          member.restarting = false;
        });
      }
    }, 200);
  }

  live(stage?: Stage): ServiceProcess[] {
    return this.members.filter((m) => !stage || m.stage === stage).map((m) => m.current);
  }

  private all(): ServiceProcess[] {
    return [...this.retired, ...this.members.map((m) => m.current)];
  }

  /** Every JSON log line of every consumer this fleet ran, including ones that died. */
  logs(): Record<string, unknown>[] {
    return this.all().flatMap((p) => jsonLines(p.stdoutLines()));
  }

  /** The live consumer whose log says it started `stage` for `jobId`. */
  runnerOf(jobId: string, stage: Stage): ServiceProcess | undefined {
    return this.live(stage).find((p) => jsonLines(p.stdoutLines()).some((l) => l.jobId === jobId && l.stage === stage && l.message === 'stage started'));
  }

  outputTail(): string {
    return this.all()
      .map((p) => p.outputTail(1_500))
      .join('\n');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.keepAliveTimer);
    await Promise.all(this.members.map((m) => m.current.stop('SIGTERM', 10_000)));
    this.members.length = 0;
  }
}
