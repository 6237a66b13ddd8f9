import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateKey } from './key-file.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]+)$/;

/** A sealed secret that cannot be opened: wrong key, another context, or tampered with. */
export class SecretError extends Error {
  override readonly name = 'SecretError';
}

/** The file under DATA_DIR that holds the master key. */
export function secretKeyPath(dataDir: string): string {
  return join(dataDir, 'secret.key');
}

/**
 * Seals small secrets (a PDF password) so they travel through Redis only as ciphertext, and makes
 * keyed hashes of them (for identities that must tell two secrets apart without holding either).
 * Two subkeys are derived from the master key with HKDF, so the cipher and the MAC never share one.
 */
export class SecretBox {
  private readonly sealKey: Buffer;
  private readonly macKey: Buffer;

  constructor(masterKey: Buffer) {
    this.sealKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'readpack/seal/v1', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'readpack/mac/v1', 32));
  }

  /**
   * AES-256-GCM with a random IV. `context` (e.g. the job id) is authenticated but not stored:
   * a sealed value copied into another job's payload does not open there.
   */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  unseal(sealed: string, context: string): string {
    const parts = SEALED.exec(sealed);
    if (!parts) throw new SecretError('not a sealed secret');
    const [, iv, body, tag] = parts as unknown as [string, string, string, string];
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      // Never echo what was sealed or why the cipher refused beyond this: either is a hint.
      throw new SecretError('the sealed secret cannot be opened with this key and context', { cause: error });
    }
  }

  /** HMAC-SHA256 (hex) of `value` for one `purpose`: equal inputs match, and nobody without the key can test guesses. */
  keyedHash(value: string, purpose: string): string {
    return createHmac('sha256', this.macKey).update(purpose, 'utf8').update('\0').update(value, 'utf8').digest('hex');
  }
}

/** The SecretBox of a deployment: its key lives in `<DATA_DIR>/secret.key`, created on first use. */
export async function openSecretBox(dataDir: string): Promise<SecretBox> {
  return new SecretBox(await loadOrCreateKey(secretKeyPath(dataDir)));
}
