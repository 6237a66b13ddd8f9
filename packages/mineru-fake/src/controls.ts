/** Which MinerU requests a fault applies to. `poll` is status and result; `any` includes health. */
export type FaultTarget = 'submit' | 'status' | 'result' | 'poll' | 'health' | 'any';

export interface FailRule {
  /** The status to answer, e.g. 500, 502, 503, 429. */
  status: number;
  /** How many matching requests get it (default 1). */
  count?: number;
  target?: FaultTarget;
  /** Sent as `Retry-After` (seconds, or an HTTP-date string). */
  retryAfter?: number | string;
  /** Body `detail`; default: a message naming the injected status. */
  detail?: string;
}

export interface HangRule {
  /** How many matching requests are never answered (default 1). */
  count?: number;
  target?: FaultTarget;
}

/** What `behave()` and `POST /__fake/behave` accept. Every field is optional and merges. */
export interface FakeControls {
  /** How long each task takes once it runs (the "slow MinerU" knob). */
  processingMs?: number;
  /** Tasks run at once; the rest stay `pending` with `queued_ahead`. */
  maxConcurrent?: number;
  /** Queued after earlier rules: each request consumes the first rule that matches it. */
  fail?: FailRule | FailRule[];
  hang?: HangRule;
  /** The next `count` submitted tasks end `failed` with `error` instead of `completed`. */
  failTasks?: { count?: number; error?: string };
}

export type RequestKind = Exclude<FaultTarget, 'poll' | 'any'>;

export function matches(target: FaultTarget | undefined, kind: RequestKind): boolean {
  const wanted = target ?? 'any';
  return wanted === 'any' || wanted === kind || (wanted === 'poll' && (kind === 'status' || kind === 'result'));
}

/** The armed faults; each use spends one from its count. */
export class FaultPlan {
  private fails: (FailRule & { remaining: number })[] = [];
  private hang: { remaining: number; target: FaultTarget } | undefined;
  private taskFailures: { remaining: number; error: string } | undefined;

  apply(controls: FakeControls): void {
    const fails = controls.fail === undefined ? [] : Array.isArray(controls.fail) ? controls.fail : [controls.fail];
    for (const rule of fails) this.fails.push({ ...rule, remaining: rule.count ?? 1 });
    if (controls.hang) this.hang = { remaining: controls.hang.count ?? 1, target: controls.hang.target ?? 'any' };
    if (controls.failTasks) {
      this.taskFailures = { remaining: controls.failTasks.count ?? 1, error: controls.failTasks.error ?? 'Injected failure: the MinerU fake was told to fail this task' };
    }
  }

  clear(): void {
    this.fails = [];
    this.hang = undefined;
    this.taskFailures = undefined;
  }

  takeHang(kind: RequestKind): boolean {
    if (!this.hang || this.hang.remaining <= 0 || !matches(this.hang.target, kind)) return false;
    this.hang.remaining -= 1;
    return true;
  }

  takeFail(kind: RequestKind): FailRule | undefined {
    const rule = this.fails.find((r) => r.remaining > 0 && matches(r.target, kind));
    if (rule) rule.remaining -= 1;
    this.fails = this.fails.filter((r) => r.remaining > 0);
    return rule;
  }

  takeTaskFailure(): string | undefined {
    if (!this.taskFailures || this.taskFailures.remaining <= 0) return undefined;
    this.taskFailures.remaining -= 1;
    return this.taskFailures.error;
  }
}
