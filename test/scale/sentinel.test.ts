import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThrowawaySentinel, fixturePath } from '@readpack/testing';
import { freshRequest } from '../support/fresh-http.js';
import { startProcessDeployment } from '../support/readpack-processes.js';
import type { ServiceProcess } from '../support/service-process.js';
import { uploadFixture } from '../support/uploads.js';

/**
 * Redis behind Sentinel (one primary, one replica, three sentinels), reached through
 * `REDIS_URL=redis+sentinel://…?name=mymaster`. The primary is SIGKILLed while documents are in
 * flight: until the sentinels promote the replica and the clients follow, the API must say "try
 * again" (503), never "no such job" (404); afterwards every job ends `done` by itself.
 */

const DOCUMENTS = [
  'GeoTopo-komprimiert.pdf',
  'MEDRPT-2024-PAT-3847_medical_report_scan.pdf',
  'REPAIR-2022-INV-001_multipage.pdf',
  'word_sample.docx',
  'footnotes.docx',
  'Book1.xlsx',
  'epson.pdf',
  'jo.pdf',
];

function formWith(name: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(fixturePath(name))]), name);
  return form;
}

let sentinel: ThrowawaySentinel;
let dataDir: string;
let base: string;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  sentinel = await ThrowawaySentinel.start();
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-sentinel-data-'));
  ({ base } = await startProcessDeployment({ redisUrl: sentinel.url, label: 'sentinel', dataDir, into: processes }));
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGTERM', 15_000)));
  await sentinel?.dispose();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('Redis Sentinel failover', () => {
  it('a primary killed mid-run: 503 during the gap, never 404, and every job ends done', async () => {
    const jobIds: string[] = [];
    for (const name of DOCUMENTS) jobIds.push((await uploadFixture(base, name)).jobId);

    // Every answer to every poll, from now until the end: the whole record of what clients saw.
    const seen = new Map<number, number>();
    const last = new Map<string, string>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await Promise.all(
          jobIds.map(async (id) => {
            const res = await freshRequest(`${base}/api/files/job/${id}`, { timeoutMs: 5_000 });
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
            if (res.status === 200) last.set(id, res.json<{ status: string }>().status);
          }),
        );
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // Kill while work is in flight (some job past queued, not all done).
    const deadline = Date.now() + 60_000;
    while (!jobIds.some((id) => last.get(id) === 'processing') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(jobIds.filter((id) => last.get(id) === 'done').length).toBeLessThan(jobIds.length);
    const oldPrimary = await sentinel.killPrimary();

    // An upload during the gap is refused as "try again" (503) or accepted (202, once the API has
    // followed the failover), never lost: an accepted one must end done like the others.
    const during = await fetch(`${base}/api/files`, { method: 'POST', body: formWith('word_sample.docx') });
    expect([202, 503]).toContain(during.status);
    if (during.status === 202) jobIds.push(((await during.json()) as { jobId: string }).jobId);
    else expect(((await during.json()) as { error: { code: string } }).error.code).toBe('state_store_unavailable');
    const newPrimary = await sentinel.waitForFailover(oldPrimary);
    expect(newPrimary).not.toBe(oldPrimary);

    const settled = Date.now() + 180_000;
    while (!jobIds.every((id) => last.get(id) === 'done' || last.get(id) === 'failed') && Date.now() < settled) await new Promise((r) => setTimeout(r, 200));
    polling = false;
    await poller;

    expect(jobIds.map((id) => last.get(id))).toEqual(jobIds.map(() => 'done'));
    // The gap was seen (so the test watched a real outage) and answered 503 only.
    expect(seen.get(503) ?? 0).toBeGreaterThan(0);
    expect([...seen.keys()].sort()).toEqual([200, 503]);

    // After the failover the deployment works as before: a new document completes.
    const { jobId } = await uploadFixture(base, 'footnotes.docx');
    const after = Date.now() + 60_000;
    let status = '';
    while (status !== 'done' && Date.now() < after) {
      const res = await freshRequest(`${base}/api/files/job/${jobId}`);
      if (res.status === 200) status = res.json<{ status: string }>().status;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('done');
  }, 300_000);
});
