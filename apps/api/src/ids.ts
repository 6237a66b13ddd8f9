import { randomBytes } from 'node:crypto';

/**
 * Unguessable ids: 128 random bits, base64url. The prefix says what the id names and keeps it
 * from ever being all digits (BullMQ rejects integer-like custom ids). Never `:` (BullMQ).
 */
export function newId(kind: 'job' | 'batch'): string {
  return `${kind}_${randomBytes(16).toString('base64url')}`;
}

const ID = /^(job|batch)_[A-Za-z0-9_-]{22}$/;

export function isWellFormedId(kind: 'job' | 'batch', id: string): boolean {
  return ID.test(id) && id.startsWith(`${kind}_`);
}
