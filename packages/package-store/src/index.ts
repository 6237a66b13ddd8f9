import { join } from 'node:path';
import { LocalBlobStore } from './blob-store.js';
import { PackageStore } from './package-store.js';

export { LocalBlobStore, BlobTooLargeError, type BlobInfo } from './blob-store.js';
export { PackageStore, type PackageIndex, type WrittenPackage } from './package-store.js';
export { ignoreMissing, isMissing } from './missing.js';
export * from './manifest.js';

/** The on-disk layout under DATA_DIR, shared by the API and every consumer. */
export interface Storage {
  blobs: LocalBlobStore;
  packages: PackageStore;
  /** Uploads in progress: same filesystem as the blobs, so adopting one is a rename. */
  spoolDir: string;
  /** Where interrupted writes may leave temporary files (the janitor clears old ones). */
  tmpDirs: string[];
}

export async function openStorage(dataDir: string): Promise<Storage> {
  const blobs = new LocalBlobStore(join(dataDir, 'blobs'));
  const packages = new PackageStore(join(dataDir, 'packages'), blobs);
  await Promise.all([blobs.init(), packages.init()]);
  return { blobs, packages, spoolDir: blobs.tmpDirectory, tmpDirs: [blobs.tmpDirectory, packages.tmpDirectory] };
}
