import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobStateStore } from '@readpack/job-state';
import { ignoreMissing, removeOrphanScratch, type Storage } from '@readpack/package-store';

export interface JanitorReport {
  packagesRemoved: number;
  blobsRemoved: number;
  spoolRemoved: number;
  /**
   * What could not be cleaned and why (EACCES, EIO…), by path: the run goes on past them and the
   * caller logs each. A file that vanished meanwhile (ENOENT) is the expected race, not a problem.
   */
  problems: { path: string; error: string }[];
}

export interface JanitorPolicy {
  /** Blobs younger than this are kept whatever references them: a job may still be on its way. */
  blobGraceMs: number;
  /** Temporary files older than this belong to a write that died. */
  spoolGraceMs: number;
  /** Packages whose record is gone are kept this long after writing (a record may be mid-transition). */
  packageGraceMs: number;
}

/**
 * Removes what no live job can reach any more. The job record is the source of truth: when it has
 * expired (RESULT_TTL_SECONDS after the job ended) its package goes, and blobs that no remaining
 * package or record references go after their grace period. Mark and sweep, no reference counts:
 * nothing to get out of step when a process dies mid-write.
 */
export async function cleanExpired(state: JobStateStore, storage: Storage, policy: JanitorPolicy, now = Date.now()): Promise<JanitorReport> {
  const report: JanitorReport = { packagesRemoved: 0, blobsRemoved: 0, spoolRemoved: 0, problems: [] };
  const referenced = new Set<string>();
  const problem = (path: string, error: unknown) => report.problems.push({ path, error: error instanceof Error ? error.message : String(error) });

  for (const packageId of await storage.packages.list()) {
    const record = await state.getJob(packageId);
    try {
      const age = now - ((await storage.packages.writtenAt(packageId)) ?? now);
      if (!record && age > policy.packageGraceMs) {
        await storage.packages.delete(packageId);
        report.packagesRemoved += 1;
        continue;
      }
      // The index, not the manifest (which can be ~170 MB): it names the upload and the assets.
      // A package without one is being deleted (the index goes first): its assets are not served.
      const index = await storage.packages.readIndex(packageId);
      if (index) {
        referenced.add(index.source);
        for (const asset of index.assets) referenced.add(asset.sha256);
      }
    } catch (error) {
      problem(storage.packages.pathOf(packageId), error);
    }
  }
  // A package we could not read may reference any blob: sweeping now could delete its assets.
  if (report.problems.length > 0) {
    for (const dir of storage.tmpDirs) report.spoolRemoved += await removeOlderThan(dir, now - policy.spoolGraceMs, problem);
    return report;
  }
  for await (const ids of state.scanJobIds()) {
    for (const jobId of ids) {
      const record = await state.getJob(jobId);
      if (record) referenced.add(record.source.sha256);
    }
  }
  try {
    for await (const blob of storage.blobs.list()) {
      if (referenced.has(blob.sha256) || now - blob.modifiedAt < policy.blobGraceMs) continue;
      await storage.blobs.delete(blob.sha256);
      report.blobsRemoved += 1;
    }
  } catch (error) {
    problem((error as NodeJS.ErrnoException).path ?? storage.blobs.root, error);
  }
  for (const dir of storage.tmpDirs) report.spoolRemoved += await removeOlderThan(dir, now - policy.spoolGraceMs, problem);
  // Downloads of consumers that died mid-parse on this host (S3: os.tmpdir()/readpack-<pid>).
  try {
    report.spoolRemoved += await removeOrphanScratch();
  } catch (error) {
    problem('readpack scratch directories', error);
  }
  return report;
}

async function removeOlderThan(dir: string, cutoff: number, problem: (path: string, error: unknown) => void): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dir).catch(ignoreMissing([] as string[]));
  } catch (error) {
    problem(dir, error);
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const info = await stat(path).catch(ignoreMissing(undefined));
      if (info && info.mtimeMs < cutoff) {
        await rm(path, { force: true, recursive: true });
        removed += 1;
      }
    } catch (error) {
      problem(path, error);
    }
  }
  return removed;
}
