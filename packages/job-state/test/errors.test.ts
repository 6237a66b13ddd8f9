import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@readpack/testing';
import { JOB_ERRORS, JOB_ERROR_CODES, deadLettered, isJobErrorCode, spliceJobErrorTable } from '../src/index.js';

describe('job error codes', () => {
  it('docs/errors.md holds exactly the generated table (npm run docs:errors)', () => {
    const doc = readFileSync(join(repoRoot(), 'docs', 'errors.md'), 'utf8');
    expect(spliceJobErrorTable(doc)).toBe(doc);
  });

  it('dead-letters what an operator can act on, never a document error the user caused', () => {
    for (const code of ['corrupt_document', 'encrypted_document', 'unsupported_media_type', 'too_many_pages', 'archive_too_large'] as const) expect(deadLettered(code)).toBe(false);
    for (const code of ['internal_error', 'stalled', 'mineru_unavailable'] as const) expect(deadLettered(code)).toBe(true);
  });

  it('is a closed set of snake_case codes', () => {
    for (const code of JOB_ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(isJobErrorCode('corrupt_document')).toBe(true);
    expect(isJobErrorCode('toString')).toBe(false);
    expect(isJobErrorCode('ocr_failed')).toBe(false);
    expect(Object.keys(JOB_ERRORS)).toEqual(JOB_ERROR_CODES);
  });
});
