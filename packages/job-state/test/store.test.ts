import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { connectTestRedis } from '@readpack/testing';
import { JobStateStore, LeaseLostError, type NewJob, type TerminalNotice } from '../src/index.js';
import { TEST_LEASE, TEST_TTL, useStoreFixture } from './store-fixture.js';

const fixture = useStoreFixture('jobstate');
const ttl = TEST_TTL;

let counter = 0;
function newJob(overrides: Partial<NewJob> = {}): NewJob {
  counter += 1;
  return {
    jobId: `job${counter}x`,
    tenant: 'tenant-a',
    source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 10, sha256: 'ab'.repeat(32) },
    ...overrides,
  };
}

describe('job records', () => {
  it('creates once, reads back, and refuses a second create', async () => {
    const job = newJob();
    expect(await fixture.store.createJob(job)).toBe(true);
    expect(await fixture.store.createJob({ ...job, tenant: 'other' })).toBe(false);
    const record = await fixture.store.getJob(job.jobId);
    expect(record).toMatchObject({ jobId: job.jobId, tenant: 'tenant-a', status: 'queued', phase: 'queued', progress: { done: 0, total: 0 } });
    expect(record?.createdBy).toBe('test-host:1');
    expect(await fixture.redis.ttl(fixture.store.jobKey(job.jobId))).toBeGreaterThan(ttl.processingSeconds);
  });

  it('answers null for an absent record', async () => {
    expect(await fixture.store.getJob('nope')).toBeNull();
  });

  it('moves queued → processing → done, sets the result window TTL and ignores later updates', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    expect(await fixture.store.start(job, 'extract', TEST_LEASE)).toEqual({ applied: true, status: 'processing' });
    expect((await fixture.store.getJob(job.jobId))?.leaseUntil).toBeDefined();
    expect(await fixture.redis.ttl(fixture.store.jobKey(job.jobId))).toBeLessThanOrEqual(ttl.processingSeconds);
    await fixture.store.progress(job, TEST_LEASE, { done: 3, total: 10 }, 'ocr');
    const pointer = { packageId: 'pkg1', size: 123, sha256: 'cd'.repeat(32) };
    expect(await fixture.store.complete(job, TEST_LEASE, pointer)).toEqual({ applied: true, status: 'done' });
    const ttlAfter = await fixture.redis.ttl(fixture.store.jobKey(job.jobId));
    expect(ttlAfter).toBeGreaterThan(ttl.processingSeconds);
    expect(ttlAfter).toBeLessThanOrEqual(ttl.resultSeconds);

    expect(await fixture.store.progress(job, TEST_LEASE, { done: 6, total: 10 }, 'extract')).toEqual({ applied: false, status: 'done' });
    expect(await fixture.store.start(job, 'extract', TEST_LEASE)).toEqual({ applied: false, status: 'done' });
    expect(await fixture.store.fail(job, { code: 'internal_error', message: 'late' })).toEqual({ applied: false, status: 'done' });
    expect(await fixture.store.complete(job, TEST_LEASE, { ...pointer, packageId: 'other' })).toEqual({ applied: false, status: 'done' });
    const record = await fixture.store.getJob(job.jobId);
    expect(record).toMatchObject({ status: 'done', phase: 'view_ready', progress: { done: 10, total: 10 }, result: pointer });
    expect(record?.error).toBeUndefined();
    expect(record?.leaseUntil).toBeUndefined();
  });

  it('gives the terminal notice of a completion from the completing script, the same as a later read of the record', async () => {
    const notices: TerminalNotice[] = [];
    const store = new JobStateStore(fixture.redis, { prefix: fixture.prefix, ttl, leaseMs: 5_000, actor: 'test-host:1', onTerminal: (n) => { notices.push(n); return Promise.resolve(); } });
    const withHook = newJob({ callbackUrl: 'https://hooks.example.com/readpack' });
    const without = newJob();
    for (const job of [withHook, without]) {
      await store.createJob(job);
      await store.start(job, 'extract', TEST_LEASE);
      await store.progress(job, TEST_LEASE, { done: 1, total: 2 });
      await store.complete(job, TEST_LEASE, { packageId: 'pkg1', size: 1, sha256: 'cd'.repeat(32) });
    }
    const fromScript = notices.splice(0);
    expect(fromScript.map((n) => [n.jobId, n.status, n.tenant, n.series, n.callbackUrl])).toEqual([
      [withHook.jobId, 'done', 'tenant-a', 1, 'https://hooks.example.com/readpack'],
      [without.jobId, 'done', 'tenant-a', 1, undefined],
    ]);
    // notifyTerminal (a redelivery finding the job ended) reads the record: it must say the same.
    for (const job of [withHook, without]) await store.notifyTerminal(job.jobId);
    expect(notices).toEqual(fromScript);
    expect(JSON.parse(fromScript[0]!.view)).toMatchObject({ jobId: withHook.jobId, status: 'done', progress: { done: 2, total: 2 } });
    // An ignored completion ends nothing and notifies nothing.
    await store.complete(withHook, TEST_LEASE, { packageId: 'pkg2', size: 1, sha256: 'ef'.repeat(32) });
    expect(notices).toHaveLength(2);
  });

  it('records a failure with its code and keeps it terminal', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    expect(await fixture.store.fail(job, { code: 'corrupt_document', message: 'no xref' }, TEST_LEASE)).toEqual({ applied: true, status: 'failed' });
    expect(await fixture.store.complete(job, TEST_LEASE, { packageId: 'p', size: 1, sha256: 'x' })).toEqual({ applied: false, status: 'failed' });
    expect(await fixture.store.getJob(job.jobId)).toMatchObject({ status: 'failed', phase: 'extract', error: { code: 'corrupt_document', message: 'no xref' } });
  });

  it('ignores transitions of a record that does not exist, and creates nothing', async () => {
    const ref = { jobId: 'ghost' };
    expect(await fixture.store.start(ref, 'extract', TEST_LEASE)).toEqual({ applied: false, status: 'missing' });
    expect(await fixture.store.heartbeat(ref, TEST_LEASE)).toEqual({ applied: false, status: 'missing' });
    expect(await fixture.store.complete(ref, TEST_LEASE, { packageId: 'p', size: 1, sha256: 'x' })).toEqual({ applied: false, status: 'missing' });
    expect(await fixture.redis.exists(fixture.store.jobKey('ghost'))).toBe(0);
  });

  it('never lowers progress or phase', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    await fixture.store.progress(job, TEST_LEASE, { done: 5, total: 10 }, 'ocr');
    await fixture.store.progress(job, TEST_LEASE, { done: 2, total: 4 }, 'extract');
    expect(await fixture.store.getJob(job.jobId)).toMatchObject({ phase: 'ocr', progress: { done: 5, total: 10 } });
  });

  it('a heartbeat renews the lease of a processing record only', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    expect(await fixture.store.heartbeat(job, TEST_LEASE)).toEqual({ applied: false, status: 'queued' });
    await fixture.store.start(job, 'extract', TEST_LEASE);
    const before = (await fixture.store.getJob(job.jobId))?.leaseUntil ?? '';
    await new Promise((r) => setTimeout(r, 20));
    expect(await fixture.store.heartbeat(job, TEST_LEASE)).toEqual({ applied: true, status: 'processing' });
    const after = (await fixture.store.getJob(job.jobId))?.leaseUntil ?? '';
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  });
});

describe('concurrent writers', () => {
  it('a late progress update racing done never leaves the record non-terminal, and progress never decreases', async () => {
    // Many interleavings of progress updates from several "consumers" racing one completion,
    // each on its own connection so Redis really sees them concurrently.
    const writers = Array.from({ length: 4 }, () => connectTestRedis());
    const stores = writers.map((r) => new JobStateStore(r, { prefix: fixture.prefix, ttl, leaseMs: 5_000, actor: 'w' }));
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ writer: fc.nat(3), done: fc.nat(10) }), { minLength: 1, maxLength: 25 }),
          fc.nat(25),
          async (updates, completeAt) => {
            const job = newJob();
            await fixture.store.createJob(job);
            await fixture.store.start(job, 'extract', TEST_LEASE);
            // Once the completion has been acknowledged, every later read must say `done`.
            let completed = false;
            const readsAfterCompletion: string[] = [];
            const ops = updates.map(async ({ writer, done }, i) => {
              if (i === Math.min(completeAt, updates.length - 1)) {
                await stores[writer]!.complete(job, TEST_LEASE, { packageId: 'p', size: 1, sha256: 'x' });
                completed = true;
              }
              await stores[writer]!.progress(job, TEST_LEASE, { done, total: 10 }, 'ocr');
              const readAfterCompletion = completed;
              const seen = await stores[(writer + 1) % 4]!.getJob(job.jobId);
              if (readAfterCompletion) readsAfterCompletion.push(seen?.status ?? 'absent');
            });
            await Promise.all(ops);
            const final = await fixture.store.getJob(job.jobId);
            expect(final?.status).toBe('done');
            expect(final?.progress.done).toBe(final?.progress.total);
            expect(readsAfterCompletion.length).toBeGreaterThan(0);
            expect(new Set(readsAfterCompletion)).toEqual(new Set(['done']));
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await Promise.all(writers.map((r) => r.quit()));
    }
  });

  it('progress read by a poller is monotonic while writers race', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    const writer = connectTestRedis();
    const writerStore = new JobStateStore(writer, { prefix: fixture.prefix, ttl, leaseMs: 5_000, actor: 'w' });
    const values = Array.from({ length: 200 }, (_, i) => (i * 7919) % 100);
    let stop = false;
    const seen: number[] = [];
    const poll = (async () => {
      while (!stop) seen.push((await fixture.store.getJob(job.jobId))?.progress.done ?? -1);
    })();
    try {
      await Promise.all(values.map((done) => writerStore.progress(job, TEST_LEASE, { done, total: 100 })));
    } finally {
      stop = true;
      await poll;
      await writer.quit();
    }
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect((await fixture.store.getJob(job.jobId))?.progress.done).toBe(99);
  });
});

describe('batches', () => {
  it('creates a batch with per-file records and aggregates their states', async () => {
    const batchId = `batch${counter}`;
    const jobs = [newJob(), newJob(), newJob()].map((j, index) => ({ ...j, batch: { batchId, index } }));
    await fixture.store.createBatch(
      { batchId, tenant: 'tenant-a', files: jobs.map((j, index) => ({ index, name: `f${index}.pdf`, jobId: j.jobId })) },
      jobs,
    );
    let view = await fixture.store.getBatch(batchId);
    expect(view).toMatchObject({ status: 'queued', total: 3, completed: 0, failed: 0 });
    expect((await fixture.store.getJob(jobs[1]!.jobId))?.batch).toEqual({ batchId, index: 1 });

    const ref = (i: number) => ({ jobId: jobs[i]!.jobId, batchId });
    await fixture.store.start(ref(0), 'extract', TEST_LEASE);
    expect((await fixture.store.getBatch(batchId))?.status).toBe('processing');
    await fixture.store.start(ref(1), 'extract', TEST_LEASE);
    // Concurrent completions touch only their own record: no lost update.
    await Promise.all([
      fixture.store.complete(ref(0), TEST_LEASE, { packageId: 'a', size: 1, sha256: 'x' }),
      fixture.store.complete(ref(1), TEST_LEASE, { packageId: 'b', size: 1, sha256: 'x' }),
      fixture.store.fail(ref(2), { code: 'corrupt_document', message: 'bad' }),
    ]);
    view = await fixture.store.getBatch(batchId);
    expect(view).toMatchObject({ status: 'partial', total: 3, completed: 2, failed: 1 });
    expect(view?.files.map((f) => f.status)).toEqual(['done', 'done', 'failed']);
    expect(view?.files[2]?.error?.code).toBe('corrupt_document');
    // The batch key outlives the queued TTL once members are terminal.
    expect(await fixture.redis.ttl(fixture.store.batchKey(batchId))).toBeGreaterThan(ttl.queuedSeconds);
  });

  it('answers null for an unknown batch and marks expired members', async () => {
    expect(await fixture.store.getBatch('none')).toBeNull();
    const batchId = `batchexp${counter}`;
    const job = { ...newJob(), batch: { batchId, index: 0 } };
    await fixture.store.createBatch({ batchId, tenant: 't', files: [{ index: 0, name: 'x', jobId: job.jobId }] }, [job]);
    await fixture.redis.del(fixture.store.jobKey(job.jobId));
    expect(await fixture.store.getBatch(batchId)).toMatchObject({ status: 'failed', files: [{ status: 'expired' }] });
  });
});

describe('active-only dedup', () => {
  it('50 concurrent creations of one identity make one job; all others join it', async () => {
    const identity = `id${counter}`;
    const results = await Promise.all(Array.from({ length: 50 }, () => fixture.store.createOrJoin(identity, newJob())));
    const created = results.filter((r) => r.created);
    expect(created).toHaveLength(1);
    expect(new Set(results.map((r) => r.jobId))).toEqual(new Set([created[0]!.jobId]));
    expect((await fixture.store.getJob(created[0]!.jobId))?.status).toBe('queued');
  });

  it('a job that ended no longer holds its identity', async () => {
    const identity = `ended${counter}`;
    const first = await fixture.store.createOrJoin(identity, newJob());
    expect((await fixture.store.createOrJoin(identity, newJob())).jobId).toBe(first.jobId);
    await fixture.store.start(first, 'extract', TEST_LEASE);
    expect((await fixture.store.createOrJoin(identity, newJob())).jobId).toBe(first.jobId);
    await fixture.store.complete(first, TEST_LEASE, { packageId: first.jobId, size: 1, sha256: 'x' });
    const second = await fixture.store.createOrJoin(identity, newJob());
    expect(second.created).toBe(true);
    expect(second.jobId).not.toBe(first.jobId);
    await fixture.store.fail(second, { code: 'corrupt_document', message: 'bad' });
    const third = await fixture.store.createOrJoin(identity, newJob());
    expect(third.created).toBe(true);
    expect(new Set([first.jobId, second.jobId, third.jobId]).size).toBe(3);
  });

  it('an expired job no longer holds its identity', async () => {
    const identity = `expired${counter}`;
    const first = await fixture.store.createOrJoin(identity, newJob());
    await fixture.redis.del(fixture.store.jobKey(first.jobId));
    const second = await fixture.store.createOrJoin(identity, newJob());
    expect(second.created).toBe(true);
    expect(second.jobId).not.toBe(first.jobId);
  });
});

describe('replay', () => {
  it('puts a failed job back to queued in a new series and keeps its history', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    await fixture.store.progress(job, TEST_LEASE, { done: 1, total: 2 }, 'extract');
    await fixture.store.fail(job, { code: 'stalled', message: 'kept dying' }, TEST_LEASE);
    expect(await fixture.store.replay(job)).toEqual({ applied: true, status: 'queued', series: 2 });
    const record = await fixture.store.getJob(job.jobId);
    expect(record).toMatchObject({ status: 'queued', phase: 'queued', series: 2, progress: { done: 0, total: 0 } });
    expect(record?.error).toBeUndefined();
    expect(record?.history).toEqual([{ series: 1, code: 'stalled', message: 'kept dying', phase: 'extract', failedAt: expect.any(String) }]);
    // The consumers of series 1 are fenced off; series 2 runs.
    expect(await fixture.store.start(job, 'extract', { ...TEST_LEASE, epoch: 9 })).toEqual({ applied: false, status: 'stale' });
    const second = { ...TEST_LEASE, series: 2 };
    await fixture.store.start(job, 'extract', second);
    await fixture.store.complete(job, second, { packageId: job.jobId, size: 1, sha256: 'x' });
    expect(await fixture.store.replay(job)).toMatchObject({ applied: false, status: 'done' });
  });
});

describe('pages and annotations', () => {
  it('counts each page once however often it is reported, and drops working fields when the job ends', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    await fixture.store.progress(job, TEST_LEASE, { done: 1, total: 4 }, 'ocr');
    await Promise.all([2, 3, 2, 3, 2].map((page) => fixture.store.pageDone(job, TEST_LEASE, page)));
    expect((await fixture.store.getJob(job.jobId))?.progress).toEqual({ done: 3, total: 4 });
    expect(await fixture.store.annotate(job, TEST_LEASE, { mineruTaskId: 'task-1' })).toEqual({ applied: true, status: 'processing' });
    expect(await fixture.store.annotations(job.jobId)).toEqual({ mineruTaskId: 'task-1' });
    await fixture.store.complete(job, TEST_LEASE, { packageId: job.jobId, size: 1, sha256: 'x' });
    const fields = await fixture.redis.hkeys(fixture.store.jobKey(job.jobId));
    expect(fields.filter((f) => f.startsWith('page.') || f.startsWith('ext.'))).toEqual([]);
    expect(await fixture.store.annotate(job, TEST_LEASE, { mineruTaskId: 'late' })).toEqual({ applied: false, status: 'done' });
  });

  it('counts a range of pages (a PDF slice) once per page, overlapping single pages included', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    await fixture.store.progress(job, TEST_LEASE, { done: 0, total: 30 }, 'extract');
    expect(await fixture.store.pagesDone(job, TEST_LEASE, 10, 10)).toEqual({ applied: true, status: 'processing' });
    expect(await fixture.store.pagesDone(job, TEST_LEASE, 10, 10)).toEqual({ applied: false, status: 'processing' });
    await fixture.store.pageDone(job, TEST_LEASE, 12);
    await fixture.store.pagesDone(job, TEST_LEASE, 0, 11);
    expect((await fixture.store.getJob(job.jobId))?.progress).toEqual({ done: 20, total: 30 });
  });
});

describe('fenced transitions', () => {
  const first = { series: 1, holder: 'extract:fence', epoch: 1, token: 'token-a' };
  const second = { ...first, epoch: 2, token: 'token-b' };
  const pointer = { packageId: 'p', size: 1, sha256: 'x' };

  it('a consumer whose lease was taken over can no longer move the record', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    expect(await fixture.store.start(job, 'extract', first)).toEqual({ applied: true, status: 'processing' });
    expect(await fixture.store.start(job, 'extract', second)).toEqual({ applied: true, status: 'processing' }); // the takeover
    const before = await fixture.redis.hgetall(fixture.store.jobKey(job.jobId));
    // The zombie wakes up: every write it tries is refused, and changes nothing.
    expect(await fixture.store.heartbeat(job, first)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.progress(job, first, { done: 9, total: 9 }, 'assemble')).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.pageDone(job, first, 0)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.start(job, 'extract', first)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.complete(job, first, pointer)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.fail(job, { code: 'internal_error', message: 'zombie' }, first)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.release(job, first)).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.annotate(job, first, { mineruTaskId: 'zombie-task' })).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.redis.hgetall(fixture.store.jobKey(job.jobId))).toEqual(before);
    // The same start with another token is not the holder either.
    expect(await fixture.store.progress(job, { ...second, token: 'forged' }, { done: 1, total: 2 })).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.complete(job, second, pointer)).toEqual({ applied: true, status: 'done' });
  });

  it('a released lease stays fenced: a late write of that start or an earlier one is refused', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', second);
    expect(await fixture.store.release(job, second)).toEqual({ applied: true, status: 'processing' });
    expect(await fixture.store.progress(job, second, { done: 1, total: 2 })).toEqual({ applied: false, status: 'fenced' });
    expect(await fixture.store.start(job, 'extract', first)).toEqual({ applied: false, status: 'fenced' });
    // Holders are independent: another stage job of the same record works on.
    const page = { series: 1, holder: 'ocr:fence-ocr-p0', epoch: 1, token: 'token-p' };
    expect(await fixture.store.start(job, 'ocr', page)).toEqual({ applied: true, status: 'processing' });
    expect(await fixture.store.pageDone(job, page, 0)).toEqual({ applied: true, status: 'processing' });
  });

  it('refuses writes from an older attempt series', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', first);
    await fixture.store.fail(job, { code: 'internal_error', message: 'gave up' }, first);
    await fixture.store.replay(job);
    const replayed = { ...first, series: 2, token: 'token-r' };
    await fixture.store.start(job, 'extract', replayed);
    expect(await fixture.store.progress(job, first, { done: 1, total: 1 })).toEqual({ applied: false, status: 'stale' });
    expect(await fixture.store.complete(job, first, pointer)).toEqual({ applied: false, status: 'stale' });
    expect(await fixture.store.complete(job, replayed, pointer)).toEqual({ applied: true, status: 'done' });
  });

  it('LeasedJobState throws LeaseLostError on a refused write', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', first);
    await fixture.store.start(job, 'extract', second);
    await expect(fixture.store.leased(first).progress(job, { done: 1, total: 2 })).rejects.toBeInstanceOf(LeaseLostError);
    await expect(fixture.store.leased(second).progress(job, { done: 1, total: 2 })).resolves.toEqual({ applied: true, status: 'processing' });
  });

  it('LeasedJobState says when its own write ended the job, after which a release changes nothing', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', first);
    const leased = fixture.store.leased(first);
    await leased.progress(job, { done: 1, total: 2 });
    expect(leased.ended).toBe(false);
    await leased.complete(job, pointer);
    expect(leased.ended).toBe(true);
    const record = await fixture.redis.hgetall(fixture.store.jobKey(job.jobId));
    const index = await fixture.redis.zrange(fixture.store.leaseIndexKey(), 0, -1);
    expect(await fixture.store.release(job, first)).toEqual({ applied: false, status: 'done' });
    expect(await fixture.redis.hgetall(fixture.store.jobKey(job.jobId))).toEqual(record);
    expect(await fixture.redis.zrange(fixture.store.leaseIndexKey(), 0, -1)).toEqual(index);

    // A complete that finds the job already ended did not end it.
    const late = fixture.store.leased(first);
    expect(await late.complete(job, pointer)).toEqual({ applied: false, status: 'done' });
    expect(late.ended).toBe(false);
  });
});

describe('the live-lease index', () => {
  const lease = { series: 1, holder: 'extract:index', epoch: 1, token: 't' };
  const members = async (jobId: string) => (await fixture.redis.zrange(fixture.store.leaseIndexKey(), 0, -1)).filter((m) => m.startsWith(`${jobId}|`));

  it('holds a queued record as `queue`, a processing one by holder, and nothing once terminal', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    expect(await members(job.jobId)).toEqual([`${job.jobId}|queue`]);
    await fixture.store.start(job, 'extract', lease);
    const page = { ...lease, holder: 'ocr:index-ocr-p2' };
    await fixture.store.start(job, 'ocr', page);
    expect((await members(job.jobId)).sort()).toEqual([`${job.jobId}|extract:index`, `${job.jobId}|ocr:index-ocr-p2`]);
    await fixture.store.release(job, page);
    // Released: the record waits in a queue again (its next stage job), and the sweeper will look.
    expect((await members(job.jobId)).sort()).toEqual([`${job.jobId}|extract:index`, `${job.jobId}|queue`]);
    await fixture.store.complete(job, lease, { packageId: 'p', size: 1, sha256: 'x' });
    expect(await members(job.jobId)).toEqual([]);
    expect((await fixture.redis.hkeys(fixture.store.jobKey(job.jobId))).filter((f) => f.startsWith('lease'))).toEqual([]);
  });

  it('lists expired leases by Redis time; an authority may fail a job only once no lease is live', async () => {
    const shortLived = new JobStateStore(fixture.redis, { prefix: fixture.prefix, ttl, leaseMs: 50, actor: 'short' });
    const job = newJob();
    await fixture.store.createJob(job);
    await shortLived.start(job, 'extract', lease);
    expect(await fixture.store.fail(job, { code: 'orphaned', message: 'x' }, { series: 1 })).toEqual({ applied: false, status: 'leased' });
    await new Promise((r) => setTimeout(r, 80));
    const { now, expired } = await fixture.store.expiredLeases(1_000);
    expect(Math.abs(now - Date.now())).toBeLessThan(5_000);
    expect(expired.filter((e) => e.jobId === job.jobId)).toEqual([{ jobId: job.jobId, holder: 'extract:index', expiredAt: expect.any(Number) }]);
    expect(await fixture.store.fail(job, { code: 'orphaned', message: 'x' }, { series: 2 })).toEqual({ applied: false, status: 'stale' });
    expect(await fixture.store.fail(job, { code: 'orphaned', message: 'x' }, { series: 1 })).toEqual({ applied: true, status: 'failed' });
    expect(await members(job.jobId)).toEqual([]);
  });
});
