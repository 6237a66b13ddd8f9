import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** 256-bit master key, stored base64 on one line so an operator can provision it from a secret manager. */
export const KEY_BYTES = 32;

export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError';
}

/**
 * Reads the master key at `path`, creating it (mode 0600) on first use. API and consumers share
 * DATA_DIR, so whichever process starts first creates the key and every other one reads it. The
 * key is written to a private temporary file and then hard-linked into place: `link` fails when
 * the name exists, so of two processes racing at first start exactly one key wins, and nobody can
 * ever read a half-written file.
 */
export async function loadOrCreateKey(path: string): Promise<Buffer> {
  const existing = await readKey(path);
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.secret.key.${process.pid}.${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(tmp, { force: true });
  }
  const created = await readKey(path);
  if (!created) throw new SecretKeyError(`${path} disappeared while it was being created`);
  return created;
}

async function readKey(path: string): Promise<Buffer | undefined> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // A key others can read protects nothing; refuse rather than carry on quietly.
  if ((mode & 0o077) !== 0) {
    throw new SecretKeyError(`${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`);
  }
  const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`${path} must hold ${KEY_BYTES} bytes, base64-encoded`);
  return key;
}
