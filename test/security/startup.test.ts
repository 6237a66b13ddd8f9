import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CONFIG_ERROR } from '@readpack/config';
import { connectTestRedis, deleteKeysWithPrefix, fixturePath, testRedisUrl, uniqueName } from '@readpack/testing';
import { jsonLines } from '../support/service-process.js';
import { serviceEnv } from '../support/env.js';
import { builtScript, startProcess } from '../support/service-process.js';
import { startApiProcess } from '../support/readpack-processes.js';
import { startApiProcesses } from './support/api-processes.js';
import { TenantClient } from './support/client.js';

/**
 * What an API process says and refuses at start, and what it never writes to its logs. These run
 * the built entry point (apps/api/dist/main.js), as production does.
 */
let dataDir: string;
const prefix = uniqueName('startup');
const base = () => ({ REDIS_URL: testRedisUrl(), READPACK_PREFIX: prefix, DATA_DIR: dataDir });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-startup-'));
});
afterAll(async () => {
  const redis = connectTestRedis();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
  await rm(dataDir, { recursive: true, force: true });
});

describe('dev mode', () => {
  it('says so loudly at start, and as an error when it listens beyond loopback', async () => {
    const [loopback] = await startApiProcesses(1, { ...base(), HOST: '127.0.0.1' });
    const [open] = await startApiProcesses(1, { ...base(), HOST: '0.0.0.0' });
    try {
      const warnings = (lines: string[]) => jsonLines(lines).filter((l) => String(l.message).startsWith('DEV MODE'));
      expect(warnings(loopback!.process.stdoutLines()).map((l) => l.level)).toEqual(['warn']);
      expect(warnings(open!.process.stdoutLines()).map((l) => l.level)).toEqual(['warn', 'error']);
    } finally {
      await Promise.all([loopback!.process.stop(), open!.process.stop()]);
    }
  }, 60_000);
});

describe('key configuration', () => {
  it('refuses a malformed API_KEYS without printing the key', async () => {
    const proc = await startApiProcess({ ...base(), API_KEYS: 'short:alice,sk-super-secret-key-value-1234:bad tenant!' });
    const exit = await proc.exited;
    expect(exit.code).toBe(EXIT_CONFIG_ERROR);
    expect(proc.outputTail()).toMatch(/API_KEYS: entry 1/);
    expect(proc.outputTail()).not.toContain('short');
  });

  it('refuses an ADMIN_TOKEN that is also a tenant key', async () => {
    const key = 'shared-secret-0123456789abcdef';
    const proc = await startApiProcess({ ...base(), API_KEYS: `${key}:alice`, ADMIN_TOKEN: key });
    expect((await proc.exited).code).toBe(EXIT_CONFIG_ERROR);
    expect(proc.outputTail()).toMatch(/ADMIN_TOKEN: must differ from every tenant API key/);
    expect(proc.outputTail()).not.toContain(key);
  });

  it('`npm start` with an API key that is too short stops at once, naming the variable (no restart loop, no service that never gets ready)', async () => {
    const startedAt = Date.now();
    // REDIS_URL given: no private Redis to bring up, so only the configuration is on trial.
    const proc = await startProcess(process.execPath, [builtScript('apps/supervisor/dist/main.js')], {
      env: serviceEnv({ ...base(), API_KEYS: 'short:alice', PORT: '0', API_INSTANCES: '2', LOG_LEVEL: 'info' }),
    });
    const exit = await Promise.race([proc.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 30_000))]);
    if (exit === undefined) await proc.stop('SIGKILL');
    expect(exit?.code).toBe(EXIT_CONFIG_ERROR);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(proc.outputTail()).toMatch(/API_KEYS: entry 1: a key needs 16/);
    expect(proc.outputTail()).not.toMatch(/exited unexpectedly; restarting/);
    expect(proc.outputTail()).not.toContain('short:');
  }, 60_000);

  it('reads keys from API_KEYS_FILE (comments and blank lines allowed), together with API_KEYS', async () => {
    const file = join(dataDir, 'keys.txt');
    await writeFile(file, '# tenants of the staging cluster\n\nfile-key-for-alice-0123456789:alice   # rotated 2026-11\nfile-key-for-carol-0123456789:carol\n', { mode: 0o600 });
    const [api] = await startApiProcesses(1, { ...base(), API_KEYS_FILE: file, API_KEYS: 'env-key-for-bob-0123456789ab:bob' });
    try {
      const missing = '/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA';
      for (const key of ['file-key-for-alice-0123456789', 'file-key-for-carol-0123456789', 'env-key-for-bob-0123456789ab']) {
        expect((await new TenantClient(api!.url, key).get(missing)).status).toBe(404);
      }
      expect((await new TenantClient(api!.url, 'file-key-for-alice-012345678').get(missing)).status).toBe(401);
    } finally {
      await api!.process.stop();
    }
  }, 60_000);
});

describe('secrets in logs', () => {
  it('neither API keys nor passwords appear in any log line, even at debug level', async () => {
    const key = 'log-probe-key-5c3e9a1b7d2f4e6a';
    const password = 'pässwörd-that-must-not-leak-7f3a';
    const [api] = await startApiProcesses(1, { ...base(), API_KEYS: `${key}:alice`, LOG_LEVEL: 'debug' });
    try {
      const client = new TenantClient(api!.url, key);
      expect((await client.upload({ name: 'note.txt', data: Buffer.from('hello') }, { password })).status).toBe(202);
      const locked = await readFile(fixturePath('libreoffice-writer-password.pdf'));
      expect((await client.upload({ name: 'locked.pdf', data: locked }, { password })).status).toBe(202);
      await client.get('/api/files/job/job_AAAAAAAAAAAAAAAAAAAAAA');
      await new TenantClient(api!.url, `${key}-wrong`).get('/api/files/job/x');
      expect((await client.upload({ name: 'bad.txt', data: Buffer.from('x') }, { password: 'x'.repeat(5_000) })).status).toBe(400);
    } finally {
      await api!.process.stop();
    }
    const output = api!.process.outputTail(1_000_000);
    expect(output).toContain('job created'); // the log was written, and read
    expect(output).not.toContain(key);
    expect(output).not.toContain(password);
    expect(output).not.toContain('x'.repeat(100));
  }, 60_000);
});
