import { beforeAll, describe, expect, it } from '@jest/globals';
import { ActiveJobsGate, type NewJob } from '../src/index.js';
import { runScript } from '../src/scripts.js';
import { TEST_LEASE, useStoreFixture } from './store-fixture.js';

const fixture = useStoreFixture('admission');
let gate: ActiveJobsGate;

beforeAll(() => {
  gate = new ActiveJobsGate(fixture.redis, { prefix: fixture.prefix, graceMs: 60_000, ttlSeconds: 900 });
});

let counter = 0;
function newJob(tenant: string): NewJob {
  counter += 1;
  return { jobId: `job_adm${counter}`, tenant, source: { filename: 'a.txt', mediaType: 'text/plain', size: 1, sha256: 'ab'.repeat(32) } };
}

async function admitAndCreate(tenant: string, limit: number) {
  const job = newJob(tenant);
  const admission = await gate.admit(tenant, [job.jobId], limit);
  if (admission.admitted) await fixture.store.createJob(job);
  return { job, admission };
}

describe('active jobs per tenant', () => {
  it('admits up to the limit, reports the backlog, and refuses beyond it', async () => {
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await admitAndCreate('t-limit', 3));
    expect(results.map((r) => r.admission)).toEqual([
      { admitted: true, activeBefore: 0 },
      { admitted: true, activeBefore: 1 },
      { admitted: true, activeBefore: 2 },
      { admitted: false, active: 3 },
    ]);
    expect(await fixture.redis.exists(fixture.store.jobKey(results[3]!.job.jobId))).toBe(0);
  });

  it('frees a slot when a job ends, done or failed', async () => {
    const jobs = [];
    for (let i = 0; i < 2; i += 1) jobs.push((await admitAndCreate('t-ends', 2)).job);
    expect((await admitAndCreate('t-ends', 2)).admission.admitted).toBe(false);
    await fixture.store.start(jobs[0]!, 'extract', TEST_LEASE);
    await fixture.store.complete(jobs[0]!, TEST_LEASE, { packageId: jobs[0]!.jobId, size: 1, sha256: 'x' });
    expect((await admitAndCreate('t-ends', 2)).admission).toEqual({ admitted: true, activeBefore: 1 });
    await fixture.store.fail(jobs[1]!, { code: 'corrupt_document', message: 'x' });
    expect((await admitAndCreate('t-ends', 2)).admission).toEqual({ admitted: true, activeBefore: 1 });
  });

  it('admits a batch whole or not at all', async () => {
    const tenant = 't-batch';
    expect(await gate.admit(tenant, ['job_b1', 'job_b2', 'job_b3'], 4)).toEqual({ admitted: true, activeBefore: 0 });
    expect(await gate.admit(tenant, ['job_b4', 'job_b5'], 4)).toEqual({ admitted: false, active: 3 });
    expect(await fixture.redis.zrange(gate.activeKey(tenant), 0, -1)).toEqual(['job_b1', 'job_b2', 'job_b3']);
  });

  it('keeps counting an id without a record during the grace, drops it after, and releases on request', async () => {
    const strict = new ActiveJobsGate(fixture.redis, { prefix: fixture.prefix, graceMs: 0, ttlSeconds: 900 });
    const tenant = 't-grace';
    expect(await gate.admit(tenant, ['job_g1'], 1)).toEqual({ admitted: true, activeBefore: 0 });
    expect(await gate.admit(tenant, ['job_g2'], 1)).toEqual({ admitted: false, active: 1 });
    // With no grace left, the record-less id is gone: its upload never created a job.
    expect(await strict.admit(tenant, ['job_g3'], 1)).toEqual({ admitted: true, activeBefore: 0 });
    await gate.release(tenant, ['job_g3']);
    expect(await gate.admit(tenant, ['job_g4'], 1)).toEqual({ admitted: true, activeBefore: 0 });
  });

  it('reads only the records it is given: a member that joined after the caller read the set still counts', async () => {
    const strict = new ActiveJobsGate(fixture.redis, { prefix: fixture.prefix, graceMs: 0, ttlSeconds: 900 });
    const tenant = 't-declared';
    const { job } = await admitAndCreate(tenant, 1);
    await fixture.store.fail(job, { code: 'corrupt_document', message: 'x' });
    // As if the member had been admitted between the caller's ZRANGE and the script: no key for it in KEYS.
    const undeclared = await runScript(fixture.redis, 'admit', [strict.activeKey(tenant)], [`${fixture.prefix}:job:`, 1, 0, 900, 'job_d2']);
    expect(undeclared).toEqual([0, 'refused', 1]);
    // Through the gate the failed member's record is declared, read, and pruned.
    expect(await strict.admit(tenant, ['job_d3'], 1)).toEqual({ admitted: true, activeBefore: 0 });
  });

  it('counts each tenant on its own, and holds the limit under concurrent admissions', async () => {
    const limit = 7;
    const attempts = await Promise.all(Array.from({ length: 40 }, (_, i) => gate.admit(i % 2 ? 't-odd' : 't-even', [`job_c${i}`], limit)));
    const admitted = (parity: number) => attempts.filter((a, i) => i % 2 === parity && a.admitted).length;
    expect(admitted(0)).toBe(limit);
    expect(admitted(1)).toBe(limit);
    const backlogs = attempts.flatMap((a) => (a.admitted ? [a.activeBefore] : [])).sort((a, b) => a - b);
    expect(backlogs).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
  });

  it('gives the set an expiry so an idle tenant leaves nothing behind', async () => {
    await gate.admit('t-ttl', ['job_t1'], 5);
    const seconds = await fixture.redis.ttl(gate.activeKey('t-ttl'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(900);
  });
});

describe('original filename', () => {
  it('keeps the name the client sent beside the sanitized one, only when they differ', async () => {
    const job = newJob('t-names');
    job.source = { ...job.source, filename: 'report.pdf', originalFilename: '../../etc/report\u0000.pdf' };
    await fixture.store.createJob(job);
    expect((await fixture.store.getJob(job.jobId))?.source).toMatchObject({ filename: 'report.pdf', originalFilename: '../../etc/report\u0000.pdf' });
    const same = newJob('t-names');
    same.source = { ...same.source, filename: 'a.txt', originalFilename: 'a.txt' };
    await fixture.store.createJob(same);
    expect((await fixture.store.getJob(same.jobId))?.source.originalFilename).toBeUndefined();
  });
});
