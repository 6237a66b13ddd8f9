import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RedisClient } from '@readpack/redis';
import { connectTestRedis, deleteKeysWithPrefix, uniqueKeyPrefix } from '@readpack/testing';
import { ActiveJobsGate, JobStateStore, type Lease, type NewJob } from '../src/index.js';
import { SCRIPT_NAMES, scriptSource, type ScriptName } from '../src/scripts.js';
import { TEST_TTL } from './store-fixture.js';

/**
 * Every job-state script touches only the keys it is given in KEYS (docs/redis-keys.md): what a
 * Redis Cluster requires, and what Redis itself checks only partly (7.0 refuses an undeclared key
 * on another node, not one that happens to live on the same node). So each script runs here
 * wrapped in a guard that shadows `redis` and fails the call when an argument under this test's
 * key prefix is not one of KEYS. `npm test` runs it on one server, `npm run test:scale` on a Cluster.
 */
let redis: RedisClient;
let prefix: string;
let store: JobStateStore;
/** Leases of 1 ms: the sweeper's scripts act only on expired entries. */
let expiringStore: JobStateStore;
let gate: ActiveJobsGate;

const guard = (keyPrefix: string) => `
local declaredKeys = {}
for _, key in ipairs(KEYS) do declaredKeys[key] = true end
local unguardedRedis = redis
local redis = setmetatable({
  call = function(...)
    local args = {...}
    for i = 2, #args do
      local arg = args[i]
      if type(arg) == 'string' and string.sub(arg, 1, ${keyPrefix.length}) == '${keyPrefix}' and not declaredKeys[arg] then
        error('undeclared key ' .. arg)
      end
    end
    return unguardedRedis.call(...)
  end,
}, { __index = unguardedRedis })
`;

beforeAll(() => {
  redis = connectTestRedis();
  prefix = uniqueKeyPrefix('scriptkeys');
  store = new JobStateStore(redis, { prefix, ttl: TEST_TTL, leaseMs: 5_000, actor: 'test-host:1', queuedGraceMs: 0 });
  expiringStore = new JobStateStore(redis, { prefix, ttl: TEST_TTL, leaseMs: 1, actor: 'test-host:1', queuedGraceMs: 0 });
  gate = new ActiveJobsGate(redis, { prefix, graceMs: 0, ttlSeconds: 900 });
  // Same command names as the real scripts: the store and the gate now run the guarded versions.
  for (const name of SCRIPT_NAMES) {
    const { command, lua } = scriptSource(name);
    redis.defineCommand(command, { lua: `${guard(`${prefix}:`)}\n${lua}` });
  }
});

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

let counter = 0;
function newJob(): NewJob {
  counter += 1;
  return { jobId: `job_keys${counter}`, tenant: 'keys', source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1, sha256: 'cd'.repeat(32) } };
}
const lease: Lease = { series: 1, holder: 'extract:test', epoch: 1, token: 'token-1' };

async function expiredJob(): Promise<string> {
  const job = newJob();
  await expiringStore.createJob(job);
  expect((await expiringStore.start({ jobId: job.jobId }, 'extract', lease)).applied).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return job.jobId;
}

async function startedJob(batch = false): Promise<{ jobId: string; batchId?: string }> {
  const job = newJob();
  const ref = batch ? { jobId: job.jobId, batchId: `batch_${job.jobId}` } : { jobId: job.jobId };
  if (ref.batchId) await store.createBatch({ batchId: ref.batchId, tenant: 'keys', files: [{ index: 0, name: 'a.pdf', jobId: job.jobId }] }, [job]);
  else await store.createJob(job);
  expect((await store.start(ref, 'extract', lease)).applied).toBe(true);
  return ref;
}

/** One call per script, each on a record in the state that makes the script do its work (not return early). */
const CALLS: Record<ScriptName, () => Promise<boolean>> = {
  create: async () => store.createJob(newJob()),
  'create-deduped': async () => {
    const first = await store.createOrJoin('identity-1', newJob());
    const second = await store.createOrJoin('identity-1', newJob());
    return first.created && !second.created && second.jobId === first.jobId;
  },
  start: async () => (await startedJob(true)).jobId !== '',
  progress: async () => (await store.progress(await startedJob(true), lease, { done: 1, total: 3 }, 'ocr')).applied,
  'page-done': async () => {
    const ref = await startedJob(true);
    await store.progress(ref, lease, { done: 0, total: 2 }, 'ocr');
    return (await store.pageDone(ref, lease, 0)).applied;
  },
  heartbeat: async () => (await store.heartbeat(await startedJob(), lease)).applied,
  release: async () => (await store.release(await startedJob(true), lease)).applied,
  annotate: async () => (await store.annotate(await startedJob(), lease, { pages: '2' })).applied,
  complete: async () => (await store.complete(await startedJob(true), lease, { packageId: 'p', size: 1, sha256: 'x' })).applied,
  fail: async () => (await store.fail(await startedJob(true), { code: 'corrupt_document', message: 'x' }, lease)).applied,
  replay: async () => {
    const ref = await startedJob(true);
    await store.fail(ref, { code: 'corrupt_document', message: 'x' }, lease);
    return (await store.replay(ref)).applied;
  },
  admit: async () => {
    const { jobId } = await startedJob();
    await store.fail({ jobId }, { code: 'corrupt_document', message: 'x' }, lease);
    await gate.admit('keys', [jobId], 5);
    // The failed member's record is read (declared) and pruned: the next admission sees 0 before it.
    return (await gate.admit('keys', ['job_keys_next'], 5)).admitted;
  },
  'expired-leases': async () => (await store.expiredLeases(100)).expired.length > 0,
  'forget-lease': async () => {
    const jobId = await expiredJob();
    return store.forgetLease({ jobId, holder: lease.holder, expiredAt: 0 });
  },
  'rearm-lease': async () => {
    const jobId = await expiredJob();
    return store.rearmLease({ jobId, holder: lease.holder, expiredAt: 0 }, 1_000);
  },
};

describe('every job-state script declares every key it touches', () => {
  it('the guard itself refuses an undeclared key', async () => {
    redis.defineCommand('readpackTestUndeclared', { lua: `${guard(`${prefix}:`)}\nreturn redis.call('GET', '${prefix}:not-declared')` });
    const call = (redis as unknown as Record<string, (n: number) => Promise<unknown>>).readpackTestUndeclared;
    await expect(call!.call(redis, 0)).rejects.toThrow(/undeclared key/);
  });

  it.each(SCRIPT_NAMES.map((name) => [name]))('%s', async (name) => {
    expect(await CALLS[name]()).toBe(true);
  });
});
