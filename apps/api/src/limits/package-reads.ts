import type { Response } from 'express';

/** Stored packages smaller than this are answered without a turn: their memory is a rounding error. */
export const UNGATED_PACKAGE_BYTES = 1024 * 1024;

interface Waiter {
  bytes: number;
  grant(): void;
}

/**
 * How many bytes of stored packages this API process reads and answers at once. A package answer
 * parses the whole manifest and holds it until the last byte is sent (a 10,000-page text PDF's
 * package is ~175 MB stored and grew a process by ~2.3 times that while it was answered), so
 * readers of large packages take turns instead of running the process out of memory together. Turns are first come,
 * first served (a large package is never passed over for ever by smaller ones); a package larger
 * than the whole budget is read alone. A turn lasts until its response closes, answered or
 * abandoned, and a client that leaves while it waits gives its place up.
 */
export class PackageReads {
  private inUse = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly budgetBytes: number) {}

  /** Bytes of packages being read and answered now (read by its tests). */
  get bytesInUse(): number {
    return this.inUse;
  }

  /** Readers waiting for a turn (read by its tests). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves true when the package may be read for `res`, false when the client left before its
   * turn (nothing is to be sent then).
   */
  turn(bytes: number, res: Response): Promise<boolean> {
    if (bytes < UNGATED_PACKAGE_BYTES) return Promise.resolve(true);
    if (res.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      let granted = false;
      const waiter: Waiter = {
        bytes,
        grant: () => {
          granted = true;
          this.inUse += bytes;
          resolve(true);
        },
      };
      res.once('close', () => {
        if (granted) this.inUse -= bytes;
        else {
          // Not granted: still in the queue, which only a grant takes a waiter out of.
          this.queue.splice(this.queue.indexOf(waiter), 1);
          resolve(false);
        }
        this.admit();
      });
      this.queue.push(waiter);
      this.admit();
    });
  }

  private admit(): void {
    for (let head = this.queue[0]; head && (this.inUse === 0 || this.inUse + head.bytes <= this.budgetBytes); head = this.queue[0]) {
      this.queue.shift();
      head.grant();
    }
  }
}
