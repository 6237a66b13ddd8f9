import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBlobStore } from './blob-store.js';
import { ignoreMissing } from './missing.js';
import { PackageStore } from './package-store.js';
import { S3Objects } from './s3/objects.js';
import { S3BlobStore } from './s3/s3-blob-store.js';
import { S3PackageStore } from './s3/s3-package-store.js';
import type { BlobLocation, BlobStore, S3Options, Storage } from './storage.js';

export { LocalBlobStore } from './blob-store.js';
export { PackageStore } from './package-store.js';
export { S3BlobStore } from './s3/s3-blob-store.js';
export { S3PackageStore } from './s3/s3-package-store.js';
export { S3Objects } from './s3/objects.js';
export { BlobTooLargeError } from './spool.js';
export { isSmallPackage, jsonChunks, makeJson, oneOrMore, SpilledJson, type MadeJson, type SpilledField, type StreamedManifest } from './json-pieces.js';
export { processScratchDir } from './local-copies.js';
export {
  ChecksumMismatchError,
  MissingObjectError,
  type BlobInfo,
  type BlobLocation,
  type BlobStore,
  type PackageIndex,
  type PackageRepository,
  type S3Options,
  type SignedUrlOptions,
  type SpooledBlob,
  type Storage,
  type WrittenPackage,
} from './storage.js';
export { ignoreMissing, isMissing } from './missing.js';
export * from './manifest.js';

/**
 * Opens the storage of this process. Local (no `s3`): everything under `dataDir`, which API and
 * consumers must share. S3: blobs and packages in the bucket; `dataDir` only holds this process's
 * upload spool, so every process may have its own.
 */
export async function openStorage(dataDir: string, s3?: S3Options): Promise<Storage> {
  if (s3) {
    const objects = new S3Objects(s3);
    const spoolDir = join(dataDir, 'spool');
    const blobs = new S3BlobStore(objects, spoolDir);
    await blobs.init();
    // No janitor sees this process's spool (consumers have their own DATA_DIR): uploads a crash
    // left behind go when a process opens the directory again. A day: no upload is still running.
    await removeOlderThan(spoolDir, Date.now() - SPOOL_LEFTOVER_MS);
    return { kind: 's3', blobs, packages: new S3PackageStore(objects, blobs, spoolDir), spoolDir, tmpDirs: [spoolDir] };
  }
  const blobs = new LocalBlobStore(join(dataDir, 'blobs'));
  const packages = new PackageStore(join(dataDir, 'packages'), blobs);
  await Promise.all([blobs.init(), packages.init()]);
  return { kind: 'local', blobs, packages, spoolDir: blobs.tmpDirectory, tmpDirs: [blobs.tmpDirectory, packages.tmpDirectory] };
}

const SPOOL_LEFTOVER_MS = 86_400_000;

async function removeOlderThan(dir: string, cutoff: number): Promise<void> {
  for (const name of await readdir(dir).catch(ignoreMissing([] as string[]))) {
    const info = await stat(join(dir, name)).catch(ignoreMissing(undefined));
    if (info && info.mtimeMs < cutoff) await rm(join(dir, name), { recursive: true, force: true });
  }
}

/** A store from its location (worker threads open their own; see BlobLocation). */
export function openBlobStore(location: BlobLocation): BlobStore {
  return location.kind === 'local' ? new LocalBlobStore(location.root) : S3BlobStore.open(location.s3, location.spoolDir);
}

/**
 * Removes the scratch directories (`os.tmpdir()/readpack-<pid>`) of processes that no longer
 * run: a consumer killed mid-parse cannot delete its downloads itself. Returns how many went.
 */
export async function removeOrphanScratch(base = tmpdir()): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(base).catch(ignoreMissing([] as string[]))) {
    const pid = /^readpack-(\d+)$/.exec(entry)?.[1];
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
    await rm(join(base, entry), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user; only ESRCH means it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

