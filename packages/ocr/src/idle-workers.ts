/** What the idle-worker policy needs to know of a worker: whether it has a page, and since when it has none. */
export interface IdleCandidate {
  busy: boolean;
  /** A monotonic time (`performance.now()`) at which its last page or start ended. */
  idleSince: number;
}

/**
 * Which idle workers to stop at `now`: those idle for at least `idleMs`, longest idle first, as
 * long as more than `warm` workers remain (busy and starting ones count: they are memory too).
 * The most recently used stay, so the language sets in use keep their warm workers.
 */
export function idleToStop<T extends IdleCandidate>(idle: readonly T[], total: number, warm: number, idleMs: number, now: number): T[] {
  const due = idle.filter((w) => !w.busy && now - w.idleSince >= idleMs).sort((a, b) => a.idleSince - b.idleSince);
  return due.slice(0, Math.max(0, total - warm));
}

/** When the next idle worker beyond `warm` comes due; undefined when none can (all busy, or no more than `warm`). */
export function nextIdleDeadline(idle: readonly IdleCandidate[], total: number, warm: number, idleMs: number): number | undefined {
  if (total <= warm) return undefined;
  let earliest: number | undefined;
  for (const w of idle) if (!w.busy && (earliest === undefined || w.idleSince < earliest)) earliest = w.idleSince;
  return earliest === undefined ? undefined : earliest + idleMs;
}
