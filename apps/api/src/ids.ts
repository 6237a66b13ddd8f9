import { randomBytes } from 'node:crypto';

/**
 * Unguessable ids: 128 random bits, base64url. The prefix says what the id names and keeps it
 * from ever being all digits (BullMQ rejects integer-like custom ids). Never `:` (BullMQ).
 */
export function newId(kind: 'job' | 'batch'): string {
  return `${kind}_${randomBytes(16).toString('base64url')}`;
}

/** What newId makes; the OpenAPI document's path parameters use the same patterns (contract/schemas.ts). */
export const ID_PATTERNS = { job: /^job_[A-Za-z0-9_-]{22}$/, batch: /^batch_[A-Za-z0-9_-]{22}$/ } as const;

export function isWellFormedId(kind: 'job' | 'batch', id: string): boolean {
  return ID_PATTERNS[kind].test(id);
}
