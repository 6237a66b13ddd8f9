import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeManifestJson, type StreamedManifest } from '../json-pieces.js';
import type { PackageManifest } from '../manifest.js';
import { checkPackageId, PACKAGE_ID, type BlobStore, type PackageIndex, type PackageRepository, type WrittenPackage } from '../storage.js';
import type { S3Objects } from './objects.js';

/**
 * Packages as `<prefix>packages/<packageId>.json` (manifest) and `.idx` (index), in the same order
 * as on disk: assets must already be blobs, then the index, then the manifest; deletion index
 * first. Each PUT is atomic, and reads check the sha256 kept in the object's metadata.
 */
export class S3PackageStore implements PackageRepository {
  constructor(
    private readonly objects: S3Objects,
    private readonly blobs: BlobStore,
    /** Local scratch: a large manifest is written here as it is serialized, then uploaded. */
    private readonly spoolDir: string,
  ) {}

  pathOf(packageId: string): string {
    return this.objects.url(manifestName(packageId));
  }

  async write(manifest: PackageManifest | StreamedManifest): Promise<WrittenPackage> {
    for (const asset of manifest.assets) {
      if (!(await this.blobs.has(asset.sha256))) throw new Error(`asset ${asset.sha256} is not in the blob store`);
    }
    const index: PackageIndex = { tenant: manifest.tenant, source: manifest.source.sha256, assets: manifest.assets };
    await this.objects.putBytes(indexName(manifest.packageId), Buffer.from(`${JSON.stringify(index)}\n`, 'utf8'));
    const name = manifestName(manifest.packageId);
    const made = await makeManifestJson(manifest, join(this.spoolDir, `package-${manifest.packageId}.${process.pid}.${randomBytes(6).toString('hex')}.json`));
    if (made.kind === 'buffer') await this.objects.putBytes(name, made.bytes, made.sha256);
    else {
      try {
        await this.objects.putFile(name, made.path, made.sha256);
      } finally {
        await rm(made.path, { force: true });
      }
    }
    return { packageId: manifest.packageId, size: made.size, sha256: made.sha256 };
  }

  async read(packageId: string): Promise<PackageManifest | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    const bytes = await this.objects.getBytes(manifestName(packageId));
    return bytes ? (JSON.parse(bytes.toString('utf8')) as PackageManifest) : null;
  }

  async readIndex(packageId: string): Promise<PackageIndex | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    const bytes = await this.objects.getBytes(indexName(packageId));
    return bytes ? (JSON.parse(bytes.toString('utf8')) as PackageIndex) : null;
  }

  async list(): Promise<string[]> {
    const ids = new Set<string>();
    for await (const item of this.objects.list('packages/')) {
      const match = /^packages\/([^/]+)\.(json|idx)$/.exec(item.name);
      if (match?.[1] && PACKAGE_ID.test(match[1])) ids.add(match[1]);
    }
    return [...ids];
  }

  async writtenAt(packageId: string): Promise<number | undefined> {
    for (const name of [manifestName(packageId), indexName(packageId)]) {
      const head = await this.objects.head(name);
      if (head) return head.modifiedAt;
    }
    return undefined;
  }

  async delete(packageId: string): Promise<void> {
    await this.objects.delete(indexName(packageId));
    await this.objects.delete(manifestName(packageId));
  }
}

function manifestName(packageId: string): string {
  return `packages/${checkPackageId(packageId)}.json`;
}

function indexName(packageId: string): string {
  return `packages/${checkPackageId(packageId)}.idx`;
}
