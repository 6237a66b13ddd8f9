import type { Config } from '@readpack/config';
import { checkWebhookTarget, WebhookTargetError, type WebhookAllowList } from '@readpack/queues';
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

const MAX_CALLBACK_URL_LENGTH = 2_048;

/**
 * The optional `callbackUrl` field (webhooks, docs/webhooks.md), else the tenant's default
 * (WEBHOOK_DEFAULT_URLS). Refused with 400 `invalid_callback_url` when it is not an http(s) URL,
 * when the tenant has no signing secret (WEBHOOK_SECRETS: an unsigned event would be worthless to
 * a receiver), or when its host resolves to a private, loopback or link-local address that
 * WEBHOOK_ALLOW_HOSTS does not allow (SSRF). The consumer checks the target again when it delivers.
 */
export async function takeCallbackUrl(body: unknown, tenant: string, webhooks: Config['webhooks'], allow: WebhookAllowList): Promise<string | undefined> {
  const fields = fieldsOf(body);
  const value = fields.callbackUrl;
  delete fields.callbackUrl;
  if (value !== undefined && (typeof value !== 'string' || value.length === 0 || value.length > MAX_CALLBACK_URL_LENGTH)) {
    throw callbackRefused(`Send at most one "callbackUrl" field, an http(s) URL of at most ${MAX_CALLBACK_URL_LENGTH} characters.`);
  }
  const url = value ?? webhooks.defaultUrls[tenant];
  if (url === undefined) return undefined;
  if (webhooks.secrets[tenant] === undefined) throw callbackRefused('Webhooks are not configured for this tenant (no signing secret); upload without "callbackUrl".');
  try {
    return (await checkWebhookTarget(url, allow)).href;
  } catch (error) {
    if (error instanceof WebhookTargetError) throw callbackRefused(`callbackUrl refused: ${error.message}.`);
    throw error;
  }
}

const callbackRefused = (message: string) => new ApiError(400, 'invalid_callback_url', message, { field: 'callbackUrl' });
