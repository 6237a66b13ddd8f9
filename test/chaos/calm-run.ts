import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { startPipeline } from '../harness.js';
import { FAST_LEASES } from '../durability/fleet.js';
import type { ChaosDocument } from './documents.js';
import { inBatches, normalizedManifest, sha256, uploadOne, waitAllTerminal } from './inspect.js';
import { IN_PROCESS_API } from './settings.js';

/** What a calm pipeline made of one document: its final status and, if done, its normalized manifest. */
export interface Reference {
  status: string;
  code: string | undefined;
  manifest: string | undefined;
}

/**
 * The reference for "byte-identical to a clean run": every document once through a pipeline of
 * its own (prefix, DATA_DIR, in-process consumers) that nothing disturbs.
 */
export async function calmRun(documents: ChaosDocument[], timeoutMs: number): Promise<Map<string, Reference>> {
  const calm = await startPipeline({ ...FAST_LEASES, ...IN_PROCESS_API });
  try {
    const heavyFirst = [...documents.filter((d) => d.heavy), ...documents.filter((d) => !d.heavy)];
    const uploads = await inBatches(heavyFirst, 4, (d) => uploadOne(calm.api.url, d.name, d.data));
    const { finals } = await waitAllTerminal(calm.api.url, uploads.map((u) => u.jobId), { timeoutMs });
    const references = new Map<string, Reference>();
    for (const { name, jobId } of uploads) {
      const final = finals.get(jobId)!;
      let manifest: string | undefined;
      if (final.status === 'done') {
        const bytes = await readFile(join(calm.config.dataDir, 'packages', `${final.result!.packageId}.json`));
        if (sha256(bytes) !== final.result!.sha256) throw new Error(`calm run: the package of ${name} does not match its record`);
        manifest = normalizedManifest(bytes, jobId);
      }
      references.set(name, { status: final.status, code: final.error?.code, manifest });
    }
    return references;
  } finally {
    await calm.stop();
  }
}
