import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { PackageReads, UNGATED_PACKAGE_BYTES } from '../src/limits/package-reads.js';

const MB = 1024 * 1024;

/** The two things PackageReads reads of a response: whether it is closed, and its 'close' event. */
class Answer extends EventEmitter {
  closed = false;
  close(): void {
    this.closed = true;
    this.emit('close');
  }
}
const answer = () => new Answer();
const asResponse = (a: Answer) => a as unknown as Response;

/** Whether a promise has settled by the time queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('PackageReads', () => {
  it('answers small packages at once, whatever is being read', async () => {
    const reads = new PackageReads(10 * MB);
    const big = answer();
    expect(await reads.turn(10 * MB, asResponse(big))).toBe(true);
    expect(await reads.turn(UNGATED_PACKAGE_BYTES - 1, asResponse(answer()))).toBe(true);
    expect(reads.bytesInUse).toBe(10 * MB);
  });

  it('gives turns first come, first served within the budget, and the next ones when an answer closes', async () => {
    const reads = new PackageReads(256 * MB);
    const [a, b, c] = [answer(), answer(), answer()];
    expect(await reads.turn(200 * MB, asResponse(a))).toBe(true);
    const second = reads.turn(100 * MB, asResponse(b));
    // 50 MB would fit beside the first, but the 100 MB package came before it.
    const third = reads.turn(50 * MB, asResponse(c));
    expect(await settled(second)).toBe(false);
    expect(await settled(third)).toBe(false);
    expect(reads.waiting).toBe(2);
    a.close();
    expect(await second).toBe(true);
    expect(await third).toBe(true);
    expect(reads.bytesInUse).toBe(150 * MB);
    b.close();
    c.close();
    expect(reads.bytesInUse).toBe(0);
  });

  it('reads a package larger than the whole budget alone', async () => {
    const reads = new PackageReads(100 * MB);
    const [huge, next] = [answer(), answer()];
    expect(await reads.turn(300 * MB, asResponse(huge))).toBe(true);
    const after = reads.turn(2 * MB, asResponse(next));
    expect(await settled(after)).toBe(false);
    huge.close();
    expect(await after).toBe(true);
  });

  it('a client that leaves while it waits gives its place up; one already gone gets no turn', async () => {
    const reads = new PackageReads(100 * MB);
    const [a, leaving, c] = [answer(), answer(), answer()];
    expect(await reads.turn(80 * MB, asResponse(a))).toBe(true);
    const left = reads.turn(80 * MB, asResponse(leaving));
    const third = reads.turn(80 * MB, asResponse(c));
    leaving.close();
    expect(await left).toBe(false);
    expect(reads.waiting).toBe(1);
    a.close();
    expect(await third).toBe(true);
    expect(reads.bytesInUse).toBe(80 * MB);
    const gone = answer();
    gone.closed = true;
    expect(await reads.turn(80 * MB, asResponse(gone))).toBe(false);
    c.close();
    expect(reads.bytesInUse).toBe(0);
    expect(reads.waiting).toBe(0);
  });
});
