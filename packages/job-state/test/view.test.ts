import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { JobRecord, JobView, NewJob } from '../src/index.js';
import { TEST_LEASE, useStoreFixture } from './store-fixture.js';

/**
 * The status document is built in Lua (scripts/prelude.lua, publishView) and served as stored, so
 * these tests hold it to the record it describes after every kind of change.
 */
const fixture = useStoreFixture('jobview', 'view-host:1');

/** What the document must say about a record: everything public, nothing internal. */
function expectedView(record: JobRecord): JobView {
  const { sha256: _sha256, ...source } = record.source;
  return {
    jobId: record.jobId,
    status: record.status,
    phase: record.phase,
    progress: record.progress,
    ...(record.error ? { error: record.error } : {}),
    ...(record.result ? { result: record.result } : {}),
    source,
    ...(record.batch ? { batch: record.batch } : {}),
    series: record.series,
    ...(record.history ? { history: record.history } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

async function storedView(jobId: string): Promise<{ tenant: string; view: unknown }> {
  const stored = await fixture.store.getJobView(jobId);
  if (!stored) throw new Error(`no view for ${jobId}`);
  return { tenant: stored.tenant, view: JSON.parse(stored.json) };
}

async function expectViewMatchesRecord(jobId: string): Promise<void> {
  const record = await fixture.store.getJob(jobId);
  if (!record) throw new Error(`no record for ${jobId}`);
  expect(await storedView(jobId)).toEqual({ tenant: record.tenant, view: expectedView(record) });
}

let counter = 0;
function newJob(overrides: Partial<NewJob> = {}): NewJob {
  counter += 1;
  return {
    jobId: `job_view${counter}`,
    tenant: 'tenant-v',
    source: { filename: 'report.docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 1234, sha256: 'ab'.repeat(32) },
    ...overrides,
  };
}

describe('the stored status document', () => {
  it('follows the record through every transition, replay included', async () => {
    const job = newJob({ source: { filename: 'r\u00e9sum\u00e9 "final".pdf', mediaType: 'application/pdf', size: 99, sha256: 'cd'.repeat(32), originalFilename: '..\\\\/x/r\u00e9sum\u00e9 "final".pdf' } });
    await fixture.store.createJob(job);
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.progress(job, TEST_LEASE, { done: 2, total: 5 }, 'ocr');
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.pageDone(job, TEST_LEASE, 3);
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.fail(job, { code: 'render_failed', message: 'tesseract said: "no" / \u00e7a \n ne va pas' }, TEST_LEASE);
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.replay(job);
    await expectViewMatchesRecord(job.jobId);
    await fixture.store.start(job, 'extract', { ...TEST_LEASE, series: 2 });
    await fixture.store.complete(job, { ...TEST_LEASE, series: 2 }, { packageId: 'pkg_view1', size: 4_567_890_123, sha256: 'ef'.repeat(32) });
    await expectViewMatchesRecord(job.jobId);
    const { view } = await storedView(job.jobId);
    expect(view).toMatchObject({ status: 'done', series: 2, history: [{ series: 1, code: 'render_failed', phase: 'ocr' }] });
    // Readable as text too: members in a fixed order, slashes not escaped.
    const json = (await fixture.store.getJobView(job.jobId))?.json ?? '';
    expect(json).toMatch(/^\{"jobId":"job_view\d+","status":"done","phase":"view_ready","progress":/);
    expect(json).toContain('"mediaType":"application/pdf"');
  });

  it('describes batch members and records created through dedup', async () => {
    const member = newJob({ batch: { batchId: 'batch_view1', index: 3 } });
    await fixture.store.createBatch({ batchId: 'batch_view1', tenant: 'tenant-v', files: [{ index: 3, name: 'report.docx', jobId: member.jobId }] }, [member]);
    await expectViewMatchesRecord(member.jobId);
    const deduped = newJob();
    await fixture.store.createOrJoin('identity-view-1', deduped);
    await expectViewMatchesRecord(deduped.jobId);
  });

  it('is absent with its record', async () => {
    expect(await fixture.store.getJobView('job_view_nothing_here')).toBeNull();
  });

  it('is left alone by lease renewals, which change nothing a client sees', async () => {
    const job = newJob();
    await fixture.store.createJob(job);
    await fixture.store.start(job, 'extract', TEST_LEASE);
    const before = await fixture.redis.hget(fixture.store.jobKey(job.jobId), 'view');
    await fixture.store.heartbeat(job, TEST_LEASE);
    expect(await fixture.redis.hget(fixture.store.jobKey(job.jobId), 'view')).toBe(before);
  });
});

describe('isoTime (Lua) agrees with Date#toISOString', () => {
  const prelude = readFileSync(new URL('../scripts/prelude.lua', import.meta.url), 'utf8');
  const isoTime = (ms: number) => fixture.redis.eval(`${prelude}\nreturn isoTime(ARGV[1])`, 0, ms) as Promise<string>;

  it('on edge dates', async () => {
    for (const date of ['1970-01-01T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '2024-02-29T12:00:00.001Z', '2100-03-01T00:00:00.000Z', '2026-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z']) {
      expect(await isoTime(Date.parse(date))).toBe(date);
    }
  });

  it('on any millisecond from 1970 to 9999', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 253_402_300_799_999 }), async (ms) => {
        expect(await isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 300 },
    );
  });
});
