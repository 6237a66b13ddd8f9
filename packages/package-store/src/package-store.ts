import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalBlobStore } from './blob-store.js';
import type { PackageManifest } from './manifest.js';

export interface WrittenPackage {
  packageId: string;
  size: number;
  sha256: string;
}

const PACKAGE_ID = /^[A-Za-z0-9_-]{8,128}$/;

/**
 * Reading packages: `<root>/<packageId>.json`, the manifest, whose assets are blobs in the
 * content-addressed blob store. Write order makes a half-written package impossible to see:
 * assets first (each atomic), then the manifest through a temporary file and one rename.
 * The manifest is serialized deterministically, so writing the same package twice leaves one
 * byte-identical file.
 */
export class PackageStore {
  constructor(
    private readonly root: string,
    private readonly blobs: LocalBlobStore,
  ) {}

  async init(): Promise<void> {
    await mkdir(join(this.root, '.tmp'), { recursive: true });
  }

  pathOf(packageId: string): string {
    if (!PACKAGE_ID.test(packageId)) throw new Error(`invalid package id: ${packageId}`);
    return join(this.root, `${packageId}.json`);
  }

  async write(manifest: PackageManifest): Promise<WrittenPackage> {
    for (const asset of manifest.assets) {
      if (!(await this.blobs.has(asset.sha256))) throw new Error(`asset ${asset.sha256} is not in the blob store`);
    }
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`, 'utf8');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const tmp = join(this.root, '.tmp', `${manifest.packageId}.${process.pid}.${Date.now()}.json`);
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, this.pathOf(manifest.packageId));
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
    return { packageId: manifest.packageId, size: bytes.length, sha256 };
  }

  /** The manifest, or null when no such package exists (expired or never written). */
  async read(packageId: string): Promise<PackageManifest | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    try {
      return JSON.parse(await readFile(this.pathOf(packageId), 'utf8')) as PackageManifest;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async list(): Promise<string[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)).filter((id) => PACKAGE_ID.test(id));
  }

  /** When the manifest was written (ms), or undefined if there is none. */
  async writtenAt(packageId: string): Promise<number | undefined> {
    return stat(this.pathOf(packageId)).then(
      (s) => s.mtimeMs,
      () => undefined,
    );
  }

  get tmpDirectory(): string {
    return join(this.root, '.tmp');
  }

  async delete(packageId: string): Promise<void> {
    await rm(this.pathOf(packageId), { force: true });
  }
}
