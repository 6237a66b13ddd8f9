import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This process's scratch directory for downloads (`os.tmpdir()/readpack-<pid>`). */
export function processScratchDir(): string {
  return join(tmpdir(), `readpack-${process.pid}`);
}

interface Held {
  users: number;
  ready: Promise<string>;
  /** Set while nobody uses the copy: its deletion, cancelled if a user comes back first. */
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Local copies of remote blobs, for code that needs a path. One download per blob however many
 * jobs of this process use it at once; the file is deleted `lingerMs` after the last of them is
 * done (success or failure). The linger is for the render stage: the pages of one PDF arrive as
 * consecutive jobs, and without it each page would download the whole document again (and the
 * render thread, which keeps the last document open by path, would parse it again).
 * Each instance has its own directory, so two stores in one process (tests run API and consumers
 * together) never delete each other's files.
 */
export class LocalCopies {
  private readonly held = new Map<string, Held>();
  readonly dir: string;

  constructor(
    private readonly download: (sha256: string, path: string) => Promise<void>,
    private readonly lingerMs = 5_000,
    base = processScratchDir(),
  ) {
    this.dir = join(base, randomBytes(6).toString('hex'));
  }

  async with<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T> {
    let entry = this.held.get(sha256);
    if (!entry) {
      entry = { users: 0, ready: this.fetch(sha256), expiry: undefined };
      this.held.set(sha256, entry);
    }
    clearTimeout(entry.expiry);
    entry.expiry = undefined;
    entry.users += 1;
    let failed = false;
    try {
      return await use(await entry.ready);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      entry.users -= 1;
      // A failed download is not kept: the next user tries again.
      if (entry.users === 0) await this.release(sha256, entry, failed ? 0 : this.lingerMs);
    }
  }

  /** Deletes every copy now (a store being closed). */
  async clear(): Promise<void> {
    for (const [sha256, entry] of this.held) {
      clearTimeout(entry.expiry);
      this.held.delete(sha256);
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  private async release(sha256: string, entry: Held, lingerMs: number): Promise<void> {
    const remove = async () => {
      if (this.held.get(sha256) !== entry || entry.users > 0) return; // taken up again meanwhile
      this.held.delete(sha256);
      await rm(join(this.dir, sha256), { force: true });
    };
    if (lingerMs === 0) return remove();
    // unref: a lingering copy never keeps a process alive; the janitor clears dead processes' copies.
    entry.expiry = setTimeout(() => {
      remove().catch((error: unknown) => process.emitWarning(`could not remove a local copy: ${String(error)}`));
    }, lingerMs).unref();
  }

  private async fetch(sha256: string): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const target = join(this.dir, sha256);
    const partial = `${target}.${randomBytes(4).toString('hex')}.part`;
    try {
      await this.download(sha256, partial);
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return target;
  }
}
