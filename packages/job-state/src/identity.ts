import { createHash } from 'node:crypto';

/**
 * The dedup identity of an upload: the same bytes, parsed the same way, for the same tenant in the
 * same environment by the same pipeline version. Anything that changes the result must be in it;
 * a secret option (a PDF password) only as its hash, so the identity never carries it.
 */
export function dedupIdentity(input: {
  tenant: string;
  env: string;
  pipelineVersion: string;
  options: Record<string, string | number | boolean | undefined>;
  sha256: string;
}): string {
  const options = Object.fromEntries(Object.entries(input.options).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(JSON.stringify([input.tenant, input.env, input.pipelineVersion, options, input.sha256]))
    .digest('hex');
}
