import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * The secret a request presents: `Authorization: Bearer <secret>`, or HTTP Basic with the secret
 * as the password (browsers can only send Basic to Bull Board). Undefined when there is none.
 */
export function presentedSecret(req: Request, options: { basic: boolean }): string | undefined {
  const header = req.get('authorization') ?? '';
  const space = header.indexOf(' ');
  if (space <= 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (!value) return undefined;
  if (scheme === 'bearer') return value;
  if (scheme === 'basic' && options.basic) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1) || undefined;
  }
  return undefined;
}

/** SHA-256 of a secret: fixed-length, so comparing two never depends on where they differ or how long they are. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time equality of two digests from `secretDigest`. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
