import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** This process's scratch directory for downloads (`os.tmpdir()/readpack-<pid>`). */
export function processScratchDir(): string {
  return join(tmpdir(), `readpack-${process.pid}`);
}

/**
 * Local copies of remote blobs, for code that needs a path. One download per blob however many
 * jobs of this process use it at once; the file is deleted when the last of them is done (success
 * or failure). Each instance has its own directory, so two stores in one process (tests run API
 * and consumers together) never delete each other's files.
 */
export class LocalCopies {
  private readonly held = new Map<string, { users: number; ready: Promise<string> }>();
  readonly dir: string;

  constructor(
    private readonly download: (sha256: string, path: string) => Promise<void>,
    base = processScratchDir(),
  ) {
    this.dir = join(base, randomBytes(6).toString('hex'));
  }

  async with<T>(sha256: string, use: (path: string) => Promise<T>): Promise<T> {
    let entry = this.held.get(sha256);
    if (!entry) {
      entry = { users: 0, ready: this.fetch(sha256) };
      this.held.set(sha256, entry);
    }
    entry.users += 1;
    try {
      return await use(await entry.ready);
    } finally {
      entry.users -= 1;
      if (entry.users === 0) {
        this.held.delete(sha256);
        await rm(join(this.dir, sha256), { force: true });
      }
    }
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
