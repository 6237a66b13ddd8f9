import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { containsSnippet, fixturePath, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';
import { ConsumerFleet, FAST_LEASES } from './fleet.js';

// The API runs in-process; consumers are real processes that the tests kill.
let pipeline: Pipeline;
let fleet: ConsumerFleet | undefined;

beforeAll(async () => {
  pipeline = await startPipeline(FAST_LEASES, { consumers: false });
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});
afterAll(async () => pipeline?.stop());

async function uploadFixture(name: string, as = name): Promise<string> {
  const res = await upload(pipeline.api.url, [{ name: as, data: await readFile(fixturePath(name)) }]);
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

describe('takeover after SIGKILL', () => {
  it('another consumer finishes the job; the client sees processing then done, never a 404', async () => {
    fleet = new ConsumerFleet(pipeline.config);
    await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const jobId = await uploadFixture('GeoTopo-komprimiert.pdf');
    const victim = await waitFor(async () => fleet!.runnerOf(jobId, 'extract'), { what: 'a consumer to start the job', timeoutMs: 30_000 });
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');

    const history = await pollUntilTerminal(pipeline.api.url, jobId, 90_000); // throws on any non-200
    expect(history.at(-1)).toMatchObject({ status: 'done' });
    expect(history.some((h) => h.status === 'processing')).toBe(true);

    const restarts = fleet.logs().filter((l) => l.jobId === jobId && l.stage === 'extract' && l.message === 'stage started');
    expect(new Set(restarts.map((l) => l.pid)).size).toBe(2); // the victim, then its successor
    const takenOverAt = Date.parse(String(restarts.find((l) => l.pid !== victim.pid)?.timestamp));
    expect(takenOverAt).toBeGreaterThan(killedAt);

    const pkg = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { text: string };
    expect(containsSnippet(pkg.text, 'Retraktion, 47')).toBe(true);
  }, 120_000);
});

describe('graceful shutdown', () => {
  it('SIGTERM lets the running job finish before the consumer exits', async () => {
    fleet = new ConsumerFleet(pipeline.config);
    const [only] = await fleet.start('extract', 1);
    await fleet.start('assemble', 1);
    const jobId = await uploadFixture('GeoTopo-komprimiert.pdf', 'geotopo-graceful.pdf');
    await waitFor(async () => fleet!.runnerOf(jobId, 'extract'), { what: 'the job to start', timeoutMs: 30_000 });
    const exit = await only!.stop('SIGTERM', 60_000);
    expect(exit).toEqual({ code: 0, signal: null });
    const lines = fleet.logs().filter((l) => l.jobId === jobId && l.stage === 'extract');
    expect(lines.map((l) => l.message)).toContain('stage finished');
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ status: 'done' });
  }, 120_000);
});
