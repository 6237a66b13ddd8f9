import { describe, expect, it } from '@jest/globals';
import { idleToStop, nextIdleDeadline, type IdleCandidate } from '../src/idle-workers.js';

// The policy alone, on given clock readings: which idle workers stop and when the next one is due.
const worker = (name: string, idleSince: number, busy = false): IdleCandidate & { name: string } => ({ name, idleSince, busy });

describe('idle workers', () => {
  it('stops those idle for the period, longest idle first, down to the warm count', () => {
    const idle = [worker('b', 200), worker('a', 100), worker('c', 300)];
    expect(idleToStop(idle, 3, 1, 1_000, 1_300).map((w) => w.name)).toEqual(['a', 'b']);
    // c came due too, but two stopped leave the one warm worker.
    expect(idleToStop(idle, 3, 1, 1_000, 5_000).map((w) => w.name)).toEqual(['a', 'b']);
    expect(idleToStop(idle, 3, 0, 1_000, 5_000).map((w) => w.name)).toEqual(['a', 'b', 'c']);
  });

  it('leaves workers idle for less than the period, and counts busy and starting workers towards the warm count', () => {
    const idle = [worker('a', 100), worker('b', 900)];
    expect(idleToStop(idle, 2, 0, 1_000, 1_099)).toEqual([]);
    expect(idleToStop(idle, 2, 0, 1_000, 1_100).map((w) => w.name)).toEqual(['a']);
    // Four workers, two of them busy (not offered): with two warm, both idle ones may go; with three, one.
    expect(idleToStop(idle, 4, 2, 1_000, 9_000).map((w) => w.name)).toEqual(['a', 'b']);
    expect(idleToStop(idle, 4, 3, 1_000, 9_000).map((w) => w.name)).toEqual(['a']);
    expect(idleToStop(idle, 2, 2, 1_000, 9_000)).toEqual([]);
    expect(idleToStop([worker('x', 0, true)], 2, 0, 1_000, 9_000)).toEqual([]);
  });

  it('is due when the longest idle worker beyond the warm count reaches the period; never at or under it', () => {
    expect(nextIdleDeadline([worker('a', 400), worker('b', 100)], 2, 1, 1_000)).toBe(1_100);
    expect(nextIdleDeadline([worker('a', 400), worker('b', 100)], 2, 2, 1_000)).toBeUndefined();
    expect(nextIdleDeadline([], 3, 1, 1_000)).toBeUndefined();
    expect(nextIdleDeadline([worker('a', 100, true)], 3, 1, 1_000)).toBeUndefined();
  });
});
