import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThrowawayRedis, waitFor } from '@readpack/testing';
import { pollUntilTerminal, type StatusBody } from '../harness.js';
import { freshRequest } from '../support/fresh-http.js';
import { startProcessDeployment } from '../support/readpack-processes.js';
import type { ServiceProcess } from '../support/service-process.js';
import { uploadFixture } from '../support/uploads.js';

/**
 * A Redis outage must read as "try again" (503 + Retry-After), never as "no such job" (404, which
 * tells a client to upload again). The test owns its redis-server: it stops and restarts it on the
 * same port and directory, and the API process reconnects by itself.
 */

const UNKNOWN_JOB = 'job_AAAAAAAAAAAAAAAAAAAAAA';

let redisDir: string | undefined;
let dataDir: string | undefined;
let redis: ThrowawayRedis | undefined;
const processes: ServiceProcess[] = [];
let base: string;
let jobId: string;

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), 'readpack-outage-redis-'));
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-outage-data-'));
  redis = await ThrowawayRedis.start({ dir: redisDir, durable: true });
  ({ base } = await startProcessDeployment({ redisUrl: redis.url, label: 'outage', dataDir, into: processes }));
  ({ jobId } = await uploadFixture(base, 'word_sample.docx'));
  expect((await pollUntilTerminal(base, jobId, 60_000)).at(-1)).toMatchObject({ status: 'done' });
}, 120_000);

afterAll(async () => {
  // Consumers drain into Redis on SIGTERM: give them one back if a failed test left it down.
  if (redis && !redis.running) await redis.restart().catch(() => undefined);
  await Promise.all(processes.map((p) => p.stop('SIGTERM', 15_000)));
  // The Redis is this test's alone: its keys go with its directory.
  await redis?.stop();
  for (const dir of [redisDir, dataDir]) if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

async function jobStatus(): Promise<{ status: number; body: StatusBody }> {
  const res = await freshRequest(`${base}/api/files/job/${jobId}`);
  return { status: res.status, body: res.json<StatusBody>() };
}

describe('Redis outage', () => {
  it('while Redis is up: the job is done, and an unknown id is 404 job_not_found', async () => {
    expect(await jobStatus()).toMatchObject({ status: 200, body: { jobId, status: 'done' } });
    const unknown = await freshRequest(`${base}/api/files/job/${UNKNOWN_JOB}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'job_not_found' } });
    expect((await freshRequest(`${base}/readyz`)).status).toBe(200);
  });

  it('while Redis is down: status answers 503 state_store_unavailable with Retry-After, never 404', async () => {
    const exit = await redis!.stop();
    expect(exit).toMatchObject({ code: 0 });

    // Several polls: the first request after the drop and those during reconnection attempts alike.
    for (let i = 0; i < 5; i += 1) {
      const res = await freshRequest(`${base}/api/files/job/${jobId}`);
      expect({ status: res.status, body: res.json() }).toEqual({
        status: 503,
        body: { error: { code: 'state_store_unavailable', message: expect.any(String) } },
      });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // An id Redis cannot be asked about is not known to be missing either.
    expect((await freshRequest(`${base}/api/files/job/${UNKNOWN_JOB}`)).status).toBe(503);
    const pkg = await freshRequest(`${base}/api/files/job/${jobId}/package`);
    expect(pkg.status).toBe(503);
    expect(pkg.json()).toMatchObject({ error: { code: 'state_store_unavailable' } });

    const ready = await freshRequest(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.json()).toMatchObject({ error: { code: 'state_store_unavailable' } });
    expect(ready.headers['retry-after']).toBeDefined();
    expect((await freshRequest(`${base}/healthz`)).status).toBe(200);
  }, 30_000);

  it('once Redis is back on the same port and dir: the same job answers 200 done again, by itself', async () => {
    await redis!.restart();
    const back = await waitFor(
      async () => {
        const res = await jobStatus().catch(() => undefined);
        // Back means every connection is: the status read and readiness (the queue connection uploads need).
        if (res?.status === 200) return (await freshRequest(`${base}/readyz`)).status === 200 ? res : undefined;
        // Until the API has reconnected, only 503 is acceptable.
        if (res && res.status !== 503) throw new Error(`unexpected ${res.status} while reconnecting: ${JSON.stringify(res.body)}`);
        return undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the API to reconnect to Redis' },
    );
    expect(back.body).toMatchObject({ jobId, status: 'done', phase: 'view_ready' });
    expect((await freshRequest(`${base}/api/files/job/${jobId}/package`)).status).toBe(200);
    expect((await freshRequest(`${base}/readyz`)).status).toBe(200);
    const unknown = await freshRequest(`${base}/api/files/job/${UNKNOWN_JOB}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'job_not_found' } });
  }, 45_000);

  it('the consumers resume too: a document uploaded after the outage completes', async () => {
    const { jobId: next } = await uploadFixture(base, 'footnotes.docx');
    expect((await pollUntilTerminal(base, next, 60_000)).at(-1)).toMatchObject({ status: 'done' });
  }, 75_000);
});
