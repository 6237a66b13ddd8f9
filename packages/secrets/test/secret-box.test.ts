import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSecretBox, SecretError, SecretKeyError, secretKeyPath } from '@readpack/secrets';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'readpack-secrets-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the key file', () => {
  it('is created once with mode 0600, and every opener of the directory shares it', async () => {
    const data = join(dir, 'shared');
    const boxes = await Promise.all(Array.from({ length: 8 }, () => openSecretBox(data)));
    expect((await stat(secretKeyPath(data))).mode & 0o777).toBe(0o600);
    const sealed = boxes[0]!.seal('openpassword', 'job_1');
    for (const box of boxes) expect(box.unseal(sealed, 'job_1')).toBe('openpassword');
    expect(Buffer.from((await readFile(secretKeyPath(data), 'utf8')).trim(), 'base64')).toHaveLength(32);
  });

  it('refuses a key readable by others and a key of the wrong size', async () => {
    const open = join(dir, 'open');
    await openSecretBox(open);
    await chmod(secretKeyPath(open), 0o644);
    await expect(openSecretBox(open)).rejects.toThrow(SecretKeyError);
    const short = join(dir, 'short');
    await openSecretBox(short);
    await writeFile(secretKeyPath(short), Buffer.alloc(16).toString('base64'), { mode: 0o600 });
    await expect(openSecretBox(short)).rejects.toThrow(/32 bytes/);
  });
});

describe('sealing', () => {
  it('keeps the plaintext out of the sealed form and opens only with the same key and context', async () => {
    const box = await openSecretBox(join(dir, 'a'));
    const other = await openSecretBox(join(dir, 'b'));
    const sealed = box.seal('pässwörd', 'job_A');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('pässwörd');
    expect(box.seal('pässwörd', 'job_A')).not.toBe(sealed); // random IV
    expect(box.unseal(sealed, 'job_A')).toBe('pässwörd');
    expect(() => box.unseal(sealed, 'job_B')).toThrow(SecretError);
    expect(() => other.unseal(sealed, 'job_A')).toThrow(SecretError);
    const [v, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.unseal([v, iv, flipped.toString('base64url'), tag].join('.'), 'job_A')).toThrow(SecretError);
    expect(() => box.unseal('openpassword', 'job_A')).toThrow(SecretError);
  });

  it('keyed hashes match for equal input and purpose only, and differ between keys', async () => {
    const box = await openSecretBox(join(dir, 'a'));
    const other = await openSecretBox(join(dir, 'b'));
    expect(box.keyedHash('x', 'p')).toBe(box.keyedHash('x', 'p'));
    expect(box.keyedHash('x', 'p')).not.toBe(box.keyedHash('y', 'p'));
    expect(box.keyedHash('x', 'p')).not.toBe(box.keyedHash('x', 'q'));
    expect(box.keyedHash('x', 'p')).not.toBe(other.keyedHash('x', 'p'));
  });
});
