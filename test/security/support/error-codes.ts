import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@readpack/testing';

/**
 * The codes docs/errors.md documents for failed jobs, read from its "Failed jobs" table: a job may
 * only ever fail with one of these, so a new code without documentation fails the tests.
 */
export function documentedJobErrorCodes(): Set<string> {
  const text = readFileSync(join(repoRoot(), 'docs', 'errors.md'), 'utf8');
  const section = text.slice(text.indexOf('## Failed jobs'));
  const end = section.indexOf('\n## ', 3);
  const table = end > 0 ? section.slice(0, end) : section;
  return new Set([...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!));
}
