import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConsumerConnection } from '@readpack/redis';
import { ThrowawayRedis, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, type Pipeline } from '../harness.js';
import { ConsumerFleet, FAST_LEASES } from '../durability/fleet.js';
import { freshRequest } from '../support/fresh-http.js';
import { killPids, processesWithEnv } from '../support/procfs.js';
import { pdfVariants } from './documents.js';
import { IN_PROCESS_API } from './settings.js';
import { allJobRecords, packageFiles, settleAll, sha256, StatusWatch, uploadOne, type Uploaded } from './inspect.js';

/**
 * Redis restarted under load. The API (in-process) and two consumer processes per stage share a
 * redis-server of this test's own with AOF (fsync always). It is stopped while about twenty jobs
 * are queued or running, kept down for longer than a lease (so every lock lapses), and started
 * again on the same port and directory. Nobody restarts the consumers: they must resume by themselves.
 */
const DOCUMENTS = 20;
const OUTAGE_MS = 6_000;

let redisDir: string | undefined;
let redis: ThrowawayRedis | undefined;
let pipeline: Pipeline | undefined;
let fleet: ConsumerFleet | undefined;
let client: RedisClient | undefined;

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), 'readpack-restart-redis-'));
  redis = await ThrowawayRedis.start({ dir: redisDir, durable: true });
  pipeline = await startPipeline({ ...FAST_LEASES, ...IN_PROCESS_API, REDIS_URL: redis.url }, { consumers: false });
  fleet = new ConsumerFleet(pipeline.config);
  await fleet.startAll(2);
  await waitFor(async () => (fleet!.live().every((p) => fleet!.logsOf(p).some((l) => l.message === 'consumer started')) ? true : undefined), {
    what: 'every consumer to start',
    timeoutMs: 30_000,
  });
  client = createConsumerConnection({ url: redis.url }, 'restart-test');
  // Refused connections while the server is down are the point of this test.
  client.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  // Consumers drain into Redis on SIGTERM, and cleanup needs it: give it back if a failure left it down.
  if (redis && !redis.running) await redis.restart().catch(() => undefined);
  await fleet?.stop();
  if (pipeline) killPids(processesWithEnv('READPACK_PREFIX', pipeline.config.redis.prefix));
  await pipeline?.stop();
  client?.disconnect();
  await redis?.stop();
  if (redisDir) await rm(redisDir, { recursive: true, force: true });
}, 60_000);

describe('Redis restarted mid-run (AOF)', () => {
  it('status answers 503 while it is down, never 404; afterwards every job ends done, consumers resuming by themselves', async () => {
    const base = pipeline!.api.url;
    const consumersBefore = fleet!.live().map((p) => p.pid).sort();
    const uploads: Uploaded[] = await settleAll((await pdfVariants(DOCUMENTS)).map((d) => uploadOne(base, d.name, d.data)));
    const jobIds = uploads.map((u) => u.jobId);
    expect(new Set(jobIds).size).toBe(DOCUMENTS);

    const beforeStop = await Promise.all(jobIds.map(async (id) => (await freshRequest(`${base}/api/files/job/${id}`)).json<{ status: string }>().status));
    const inFlight = beforeStop.filter((s) => s === 'queued' || s === 'processing').length;
    expect(inFlight).toBeGreaterThanOrEqual(DOCUMENTS / 2);
    expect(await redis!.stop()).toMatchObject({ code: 0 });

    // While down: every poll is 503 state_store_unavailable with Retry-After, and an upload is refused, not half-accepted.
    const outage: { status: number; code?: string; retryAfter?: unknown }[] = [];
    const downUntil = Date.now() + OUTAGE_MS;
    while (Date.now() < downUntil) {
      for (const id of jobIds) {
        const res = await freshRequest(`${base}/api/files/job/${id}`);
        outage.push({ status: res.status, code: res.json<{ error?: { code: string } }>().error?.code, retryAfter: res.headers['retry-after'] });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(outage.length).toBeGreaterThanOrEqual(DOCUMENTS);
    expect(outage.filter((o) => o.status !== 503 || o.code !== 'state_store_unavailable' || !o.retryAfter)).toEqual([]);
    const refused = await fetch(`${base}/api/files`, { method: 'POST', body: uploadForm('during-outage.txt', 'uploaded while Redis was down') });
    expect({ status: refused.status, body: await refused.json() }).toMatchObject({ status: 503, body: { error: { code: 'state_store_unavailable' } } });

    await redis!.restart();
    const restartedAt = Date.now();
    const watch = new StatusWatch(base, { allowed: [200, 503] });
    for (const id of jobIds) watch.add(id);
    const { finals, polls } = await watch.settled(120_000);
    const stalls = fleet!.logs().filter((l) => l.message === 'job stalled; taking it over').length;
    console.info(
      `redis restart: ${inFlight}/${DOCUMENTS} jobs queued or processing at the stop, ${outage.length} polls during the ${OUTAGE_MS} ms outage, ` +
        `all terminal ${Date.now() - restartedAt} ms after the restart, ${stalls} stalled jobs taken over`,
    );
    expect(polls.counts.get(404)).toBeUndefined();
    expect(polls.unexpected).toEqual([]);
    expect(jobIds.map((id) => ({ id, status: finals.get(id)?.status, error: finals.get(id)?.error }))).toEqual(jobIds.map((id) => ({ id, status: 'done', error: undefined })));

    // The same consumer processes, none restarted, picked work up again after the restart.
    expect(fleet!.live().map((p) => p.pid).sort()).toEqual(consumersBefore);
    expect(fleet!.running()).toHaveLength(consumersBefore.length);
    const resumed = fleet!.logs().filter((l) => l.message === 'stage started' && Date.parse(String(l.timestamp)) > restartedAt);
    expect(resumed.length).toBeGreaterThan(0);
    expect([...new Set(resumed.map((l) => l.stage))]).toEqual(expect.arrayContaining(['extract', 'assemble']));
    for (const pid of fleet!.live('extract').map((p) => p.pid)) expect({ pid, resumed: resumed.some((l) => l.pid === pid) }).toEqual({ pid, resumed: true });

    // What AOF kept is whole: every record terminal, each package on disk and matching its record.
    const records = await allJobRecords(client!, pipeline!.config);
    expect([...records.values()].filter((r) => r.status !== 'done' && r.status !== 'failed').map((r) => r.jobId)).toEqual([]);
    const packages = await packageFiles(pipeline!.config.dataDir);
    for (const id of jobIds) expect({ id, sha256: sha256(packages.get(id) ?? Buffer.alloc(0)) }).toEqual({ id, sha256: records.get(id)?.result?.sha256 });

    // And the pipeline takes new work as before.
    const after = await uploadOne(base, 'after-restart.txt', Buffer.from('uploaded once Redis was back'));
    const next = new StatusWatch(base);
    next.add(after.jobId);
    expect((await next.settled(30_000)).finals.get(after.jobId)).toMatchObject({ status: 'done' });
  }, 240_000);
});

function uploadForm(name: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  return form;
}
