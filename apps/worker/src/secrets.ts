import { SecretError, type SecretBox } from '@readpack/secrets';
import { PermanentFailure } from './failures.js';

/**
 * The PDF password of a job, unsealed only in the consumer that needs it (never logged, never
 * stored in the clear). A seal that does not open — another deployment's key, a tampered payload —
 * fails the job rather than guessing.
 */
export function pdfPassword(secrets: SecretBox | undefined, sealed: string | undefined, jobId: string): string | undefined {
  if (sealed === undefined) return undefined;
  if (!secrets) throw new Error('this stage needs the secret box to open a sealed password');
  try {
    return secrets.unseal(sealed, jobId);
  } catch (error) {
    if (error instanceof SecretError) throw new PermanentFailure('secret_unavailable', 'The document password could not be opened on this deployment; upload it again.');
    throw error;
  }
}
