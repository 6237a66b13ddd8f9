import type { Stage } from '@readpack/config';
import { QUEUES } from '@readpack/queues';
import type { ConsumerFleet, LogLine, RunningConsumer } from '../durability/fleet.js';

export interface Kill {
  at: number;
  pid: number;
  stage: Stage;
  /** `<stage>/<BullMQ job id>` of the jobs the victim's log showed it working on when it died. */
  inFlight: string[];
}

/** Lines after which a consumer is no longer working on that job. */
const JOB_ENDED = new Set(['stage finished', 'job failed', 'attempt failed; will retry']);

/**
 * SIGKILLs a random consumer every `minMs`–`maxMs` until stopped; the fleet's keepAlive restarts
 * it, and BullMQ's lease expiry hands its jobs to the other consumer of the stage.
 *
 * Two rules keep the chaos meaningful without turning it into a poison test:
 * - A consumer in the middle of a job is preferred (waiting up to `busyWaitMs` for one): most
 *   documents take milliseconds, and a kill of an idle consumer proves little.
 * - A BullMQ job is interrupted at most `maxStalledCount - 1` times. BullMQ fails a job for good
 *   on its (maxStalledCount + 1)-th stall (the poison bound, tested in poison.test.ts); one stall
 *   is left as margin for a lock lost under load, which the kills here do not control (seen in
 *   long runs: a consumer busy with two 117-page parses missed its 2 s lock renewal).
 */
export class ChaosController {
  readonly kills: Kill[] = [];
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly fleet: ConsumerFleet,
    private readonly options: { minMs: number; maxMs: number; busyWaitMs?: number; random: () => number },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { minMs, maxMs, random } = this.options;
    while (this.running) {
      await this.sleep(minMs + random() * (maxMs - minMs));
      if (!this.running) return;
      const victim = await this.chooseVictim();
      if (!victim || !this.running) continue;
      this.kills.push({ at: Date.now(), pid: victim.consumer.process.pid, stage: victim.consumer.stage, inFlight: victim.inFlight });
      victim.consumer.process.child.kill('SIGKILL');
    }
  }

  private async chooseVictim(): Promise<{ consumer: RunningConsumer; inFlight: string[] } | undefined> {
    const deadline = Date.now() + (this.options.busyWaitMs ?? 1_000);
    for (;;) {
      const starts = startsPerJob(this.fleet.logs());
      const eligible = this.fleet
        .running()
        .filter((c) => this.fleet.logsOf(c.process).some((l) => l.message === 'consumer started'))
        .map((consumer) => ({ consumer, inFlight: inFlightJobs(this.fleet.logsOf(consumer.process)) }))
        .filter(({ inFlight }) => inFlight.every((key) => (starts.get(key) ?? 0) <= killsAllowed(key)));
      const busy = eligible.filter((c) => c.inFlight.length > 0);
      if (busy.length > 0) return this.pick(busy);
      if (Date.now() >= deadline || !this.running) return eligible.length > 0 ? this.pick(eligible) : undefined;
      await this.sleep(50);
    }
  }

  private pick<T>(items: T[]): T {
    return items[Math.floor(this.options.random() * items.length)]!;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** A job's k-th start may be killed while k ≤ this: the k-th kill is its k-th stall. */
function killsAllowed(key: string): number {
  const stage = key.slice(0, key.indexOf('/')) as Stage;
  return QUEUES[stage].worker.maxStalledCount - 1;
}

/**
 * One BullMQ job: `<stage>/<BullMQ job id>`. Not the Readpack job id: a document's pages are
 * separate render and OCR jobs, and BullMQ counts stalls per BullMQ job.
 */
export function jobKey(line: LogLine): string {
  return `${String(line.stage)}/${String(line.bullJobId ?? line.jobId)}`;
}

/** How often each BullMQ job was started, over every consumer's log. */
export function startsPerJob(lines: LogLine[]): Map<string, number> {
  const starts = new Map<string, number>();
  for (const line of lines) if (line.message === 'stage started') starts.set(jobKey(line), (starts.get(jobKey(line)) ?? 0) + 1);
  return starts;
}

/** The jobs one consumer's log shows started and not yet ended. */
function inFlightJobs(lines: LogLine[]): string[] {
  const open = new Set<string>();
  for (const line of lines) {
    if (typeof line.jobId !== 'string') continue;
    if (line.message === 'stage started') open.add(jobKey(line));
    else if (JOB_ENDED.has(String(line.message))) open.delete(jobKey(line));
  }
  return [...open];
}
