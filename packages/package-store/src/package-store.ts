import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { makeManifestJson, type StreamedManifest } from './json-pieces.js';
import type { PackageManifest } from './manifest.js';
import { ignoreMissing, isMissing } from './missing.js';
import { PACKAGE_ID, type BlobStore, type PackageIndex, type PackageRepository, type WrittenPackage } from './storage.js';

/**
 * Reading packages: `<root>/<packageId>.json`, the manifest, whose assets are blobs in the
 * content-addressed blob store, and `<root>/<packageId>.idx`, its index (tenant, upload and asset list).
 * Write order makes a half-written package impossible to see: assets first (each atomic), then
 * the index, then the manifest, each through a temporary file and one rename. Deletion runs the
 * other way (index first), so assets are never served for a package that is going.
 * The manifest is serialized deterministically, so writing the same package twice leaves one
 * byte-identical file; a large one is written as it is serialized (makeManifestJson), never whole in memory.
 */
export class PackageStore implements PackageRepository {
  constructor(
    private readonly root: string,
    private readonly blobs: BlobStore,
  ) {}

  async init(): Promise<void> {
    await mkdir(join(this.root, '.tmp'), { recursive: true });
  }

  pathOf(packageId: string): string {
    if (!PACKAGE_ID.test(packageId)) throw new Error(`invalid package id: ${packageId}`);
    return join(this.root, `${packageId}.json`);
  }

  indexPathOf(packageId: string): string {
    if (!PACKAGE_ID.test(packageId)) throw new Error(`invalid package id: ${packageId}`);
    return join(this.root, `${packageId}.idx`);
  }

  async write(manifest: PackageManifest | StreamedManifest): Promise<WrittenPackage> {
    for (const asset of manifest.assets) {
      if (!(await this.blobs.has(asset.sha256))) throw new Error(`asset ${asset.sha256} is not in the blob store`);
    }
    const index: PackageIndex = { tenant: manifest.tenant, source: manifest.source.sha256, assets: manifest.assets };
    await this.replace(this.indexPathOf(manifest.packageId), Buffer.from(`${JSON.stringify(index)}\n`, 'utf8'));
    const target = this.pathOf(manifest.packageId);
    const made = await makeManifestJson(manifest, this.tmpPathFor(target));
    if (made.kind === 'buffer') await this.replace(target, made.bytes);
    else await this.moveInto(made.path, target);
    return { packageId: manifest.packageId, size: made.size, sha256: made.sha256 };
  }

  /** The index alone (tenant, upload, assets), or null when the package does not exist. */
  async readIndex(packageId: string): Promise<PackageIndex | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    try {
      return JSON.parse(await readFile(this.indexPathOf(packageId), 'utf8')) as PackageIndex;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private tmpPathFor(target: string): string {
    return join(this.root, '.tmp', `${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  }

  private async moveInto(tmp: string, target: string): Promise<void> {
    try {
      await rename(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  private async replace(target: string, bytes: Buffer): Promise<void> {
    const tmp = this.tmpPathFor(target);
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, target);
    } catch (error) {
      await rm(tmp, { force: true });
      throw error;
    }
  }

  /** The manifest, or null when no such package exists (expired or never written). */
  async read(packageId: string): Promise<PackageManifest | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    try {
      return JSON.parse(await readFile(this.pathOf(packageId), 'utf8')) as PackageManifest;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** Every package with a manifest or an index (an index alone is a write that died half-way). */
  async list(): Promise<string[]> {
    const names = await readdir(this.root).catch(ignoreMissing([] as string[]));
    const ids = names.filter((n) => n.endsWith('.json') || n.endsWith('.idx')).map((n) => n.slice(0, n.lastIndexOf('.')));
    return [...new Set(ids)].filter((id) => PACKAGE_ID.test(id));
  }

  /** When the package was written (ms): its manifest, else its index; undefined if neither exists. */
  async writtenAt(packageId: string): Promise<number | undefined> {
    for (const path of [this.pathOf(packageId), this.indexPathOf(packageId)]) {
      const info = await stat(path).catch(ignoreMissing(undefined));
      if (info) return info.mtimeMs;
    }
    return undefined;
  }

  get tmpDirectory(): string {
    return join(this.root, '.tmp');
  }

  async delete(packageId: string): Promise<void> {
    await rm(this.indexPathOf(packageId), { force: true });
    await rm(this.pathOf(packageId), { force: true });
  }
}
