import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl, uniqueName, waitFor } from '@readpack/testing';
import { freshRequest, servedByPid } from '../support/fresh-http.js';
import { serviceEnv } from '../support/env.js';
import { builtScript, jsonLines, startProcess, type ServiceProcess } from '../support/service-process.js';

/*
 * /metrics of a node:cluster API (cluster.ts, two workers): whichever worker answers, the HTTP
 * counts are the sum over both, collected by the primary over IPC.
 */

const ADMIN_TOKEN = 'metrics-admin-token-0123456789';
const REQUESTS = 60;

describe('/metrics under node:cluster', () => {
  let api: ServiceProcess;
  let url: string;
  let dataDir: string;
  const prefix = uniqueName('rp');

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'readpack-metrics-cluster-'));
    api = await startProcess(process.execPath, [builtScript('apps/api/dist/cluster.js')], {
      env: serviceEnv({ REDIS_URL: testRedisUrl(), READPACK_PREFIX: prefix, DATA_DIR: dataDir, PORT: '0', API_INSTANCES: '2', ADMIN_TOKEN, LOG_LEVEL: 'info' }),
    });
    // PORT=0 under node:cluster: the primary picks one port and both workers share it.
    url = await waitFor(
      async () => {
        if (api.child.exitCode !== null) throw new Error(`API cluster exited early\n${api.outputTail()}`);
        const listening = jsonLines(api.stdoutLines()).filter((l) => l.message === 'api listening');
        return listening.length === 2 && typeof listening[0]?.url === 'string' ? listening[0].url : undefined;
      },
      { timeoutMs: 30_000, what: 'two API workers to listen' },
    );
  }, 40_000);

  afterAll(async () => {
    await api?.stop();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sums the HTTP counts of both workers, whichever worker is scraped', async () => {
    const pids = new Set<number>();
    for (let i = 0; i < REQUESTS; i++) pids.add(servedByPid(await freshRequest(`${url}/healthz`)));
    expect(pids.size).toBe(2);
    const healthz = (text: string) => Number(/^readpack_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    // Readings are at most a second old: scrape until the last requests are in.
    const scrape = () => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.text());
    await waitFor(async () => (healthz(await scrape()) === REQUESTS ? true : undefined), { timeoutMs: 10_000, intervalMs: 200, what: `${REQUESTS} /healthz requests in /metrics` });
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
  });
});
