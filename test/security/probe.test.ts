import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { connectTestRedis, deleteKeysWithPrefix } from '@readpack/testing';
import { startApi, type RunningApi } from '../../apps/api/src/server.js';
import { testConfig } from '../harness.js';
import { capturedLogger, type LogRecord } from '../support/captured-logger.js';
import { errorCode, TenantClient } from './support/client.js';

/**
 * The findings of a hostile probe against two tenants (review section 7), one test each: what an
 * attacker tried, and what the service must answer and log instead.
 */
const ALICE = 'probe-alice-key-0123456789abcdef';
const BOB = 'probe-bob-key-0123456789abcdef01';

describe('hostile probe, two tenants', () => {
  let api: RunningApi;
  let records: LogRecord[];
  let cleanUp: () => Promise<void>;
  let alice: TenantClient;
  let anonymous: TenantClient;

  beforeAll(async () => {
    const config = await testConfig({ API_KEYS: `${ALICE}:alice,${BOB}:bob` });
    const captured = capturedLogger();
    records = captured.records;
    api = await startApi(config, captured.logger);
    alice = new TenantClient(api.url, ALICE);
    anonymous = new TenantClient(api.url);
    cleanUp = async () => {
      await api.close();
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, config.redis.prefix);
      await redis.quit();
      await rm(config.dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => cleanUp?.());

  const errorsLogged = () => records.filter((r) => r.level === 'error');

  it('a broken percent-escape in an id: 401 without a key, 400 bad_request with one, never a 500 or a logged error', async () => {
    const ids = ['%zz', '%', '%ff%fe', 'job_%E0%A4%A'];
    const paths = ids.flatMap((id) => [`/api/files/job/${id}`, `/api/files/job/${id}/package`, `/api/files/job/${id}/markdown`, `/api/files/batch/${id}`, `/api/assets/${id}`]);
    for (const path of paths) {
      const refused = await anonymous.get(path);
      expect({ path, status: refused.status, code: await errorCode(refused) }).toEqual({ path, status: 401, code: 'auth_required' });
      expect(refused.headers.get('x-served-by')).toBeTruthy();
      const bad = await alice.get(path);
      expect({ path, status: bad.status, code: await errorCode(bad) }).toEqual({ path, status: 400, code: 'bad_request' });
      expect(bad.headers.get('x-served-by')).toBeTruthy();
      expect(bad.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    expect(errorsLogged()).toEqual([]);
    expect(records.filter((r) => r.message === 'refused a path with a malformed percent-escape').every((r) => r.level === 'info')).toBe(true);
  });
});
