import { readFileSync, rmSync, writeFileSync } from 'node:fs';

export type PidLock = { acquired: true; release: () => void } | { acquired: false; heldBy: number };

/**
 * An exclusive claim on a directory for as long as this process lives: a file holding our pid.
 * A file left behind by a dead process is taken over. Guards the private Redis's AOF directory,
 * which two redis-servers writing at once would corrupt.
 */
export function acquirePidLock(file: string): PidLock {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      let released = false;
      return {
        acquired: true,
        release: () => {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return { acquired: false, heldBy: holder };
    rmSync(file, { force: true });
  }
  throw new Error(`could not create ${file}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
