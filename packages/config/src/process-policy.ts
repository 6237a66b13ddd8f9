/**
 * How Readpack's own process managers (`npm start`'s supervisor, the API cluster primary) treat
 * their children: one restart policy and one exit code, so both behave alike.
 */

/**
 * A process whose configuration is invalid exits with this (sysexits' EX_CONFIG). Restarting it
 * cannot help: a manager that sees it stops everything and exits, rather than retrying forever
 * while the service never becomes ready.
 */
export const EXIT_CONFIG_ERROR = 78;

export interface BackoffPolicy {
  initialDelayMs: number;
  factor: number;
  maxDelayMs: number;
  /** A process that ran at least this long counts as healthy: its next restart starts over at `initialDelayMs`. */
  resetAfterMs: number;
}

/** PM2's exponential restart delay, as our managers use it. */
export const RESTART_BACKOFF: BackoffPolicy = { initialDelayMs: 1_000, factor: 2, maxDelayMs: 30_000, resetAfterMs: 60_000 };

/** Delay before the restart that follows `failures` consecutive short-lived runs (0 → initial delay). */
export function restartDelay(policy: BackoffPolicy, failures: number): number {
  return Math.min(policy.maxDelayMs, Math.round(policy.initialDelayMs * policy.factor ** failures));
}

/** One supervised process's consecutive failures, and the delay before its next restart. */
export class RestartBackoff {
  private failures = 0;

  constructor(private readonly policy: BackoffPolicy = RESTART_BACKOFF) {}

  /** The delay before restarting a process that exited after running `uptimeMs`. */
  next(uptimeMs: number): number {
    if (uptimeMs >= this.policy.resetAfterMs) this.failures = 0;
    const delay = restartDelay(this.policy, this.failures);
    this.failures += 1;
    return delay;
  }
}
