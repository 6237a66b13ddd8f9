import { ApiError } from '../http/errors.js';

/**
 * PDF passwords are at most 127 bytes (UTF-8, AES-256 handlers; 32 for older ones); anything
 * longer is not a password. The bound also keeps the sealed form well inside the payload schema.
 */
const MAX_PASSWORD_BYTES = 256;

function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/**
 * The optional `password` field of an upload (a PDF's user password). It is taken out of the
 * request body here, so nothing that logs or inspects the request later can see it, and is never
 * stored or logged: it travels to the consumer only sealed (see routes/files.ts).
 */
export function takePassword(body: unknown): string | undefined {
  const fields = fieldsOf(body);
  const value = fields.password;
  delete fields.password;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || Buffer.byteLength(value, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new ApiError(400, 'invalid_password', `Send at most one "password" field of 1–${MAX_PASSWORD_BYTES} bytes (UTF-8).`, { field: 'password' });
  }
  return value;
}
