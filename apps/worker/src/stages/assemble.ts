import { SCHEMA_VERSION, type AssetEntry, type PackageManifest } from '@readpack/package-store';
import type { AssemblePayload } from '@readpack/queues';
import type { Extraction } from '../extraction.js';
import { PermanentFailure } from '../failures.js';
import type { StageHandler } from '../stage.js';

/**
 * assemble: extraction → reading package → job `done`. Idempotent end to end: the manifest is a
 * pure function of the payload and the extraction (no clocks, no randomness), the package store
 * writes it atomically under the job's own id, and `complete` ignores a record already terminal.
 */
export const assembleStage: StageHandler<'assemble'> = {
  stage: 'assemble',
  phase: 'assemble',
  usesParsePool: false,
  async handle(payload, { storage, state, logger }) {
    if (!(await storage.blobs.has(payload.extraction.sha256))) {
      throw new PermanentFailure('source_missing', 'The extraction of this job is no longer stored; upload the file again.');
    }
    const extraction = JSON.parse((await storage.blobs.readBuffer(payload.extraction.sha256)).toString('utf8')) as Extraction;
    const written = await storage.packages.write(buildManifest(payload, extraction));
    const result = await state.complete(payload, written);
    logger.info('package written', { packageId: written.packageId, size: written.size, sha256: written.sha256, recorded: result.applied });
  },
};

export function buildManifest(payload: AssemblePayload, extraction: Extraction): PackageManifest {
  const assets: AssetEntry[] = [];
  const seen = new Set<string>();
  for (const image of extraction.images) {
    if (seen.has(image.sha256)) continue;
    seen.add(image.sha256);
    assets.push({ sha256: image.sha256, mediaType: image.mediaType, size: image.size, role: 'embedded-image', name: image.name });
  }
  const manifest: PackageManifest = {
    schemaVersion: SCHEMA_VERSION,
    packageId: payload.jobId,
    jobId: payload.jobId,
    tenant: payload.tenant,
    source: { ...payload.source },
    origin: extraction.origin,
    text: extraction.text,
    tables: extraction.tables.map((t) => ({ name: t.name, rows: t.rows, origin: t.origin })),
    assets,
  };
  if (extraction.pages) manifest.pages = extraction.pages.map((p) => ({ index: p.index, text: p.text, origin: p.origin }));
  return manifest;
}
