import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { QUEUES } from '@readpack/queues';
import { fixturePath, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';
import { ConsumerFleet } from './fleet.js';

/** The OCR queue's own lease settings (the defaults every stage shares), not the tests' fast ones. */
const DEFAULT_LEASES = { LOCK_DURATION_MS: String(QUEUES.ocr.worker.lockDuration), STALLED_INTERVAL_MS: String(QUEUES.ocr.worker.stalledInterval) };
const PAGE_MS = 90_000;

let pipeline: Pipeline;
let fleet: ConsumerFleet | undefined;

beforeAll(async () => {
  pipeline = await startPipeline(DEFAULT_LEASES, { consumers: false });
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});
afterAll(async () => pipeline?.stop());

describe('a long OCR page', () => {
  it(`(${PAGE_MS / 1_000} s of CPU in a worker thread) is never taken over while its consumer lives, with the default leases`, async () => {
    // Every OCR consumer spends 90 s on this page before reading it; a second OCR consumer stands
    // by and would take the page over the moment its lock lapsed.
    fleet = new ConsumerFleet(pipeline.config, { ...DEFAULT_LEASES, FAULT_BUSY: `ocr:${PAGE_MS}:long-page` });
    for (const stage of ['extract', 'render', 'assemble'] as const) await fleet.start(stage, 1);
    await fleet.start('ocr', 2);
    const res = await upload(pipeline.api.url, [{ name: 'long-page.png', data: await readFile(fixturePath('testocr.png')) }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    await waitFor(async () => fleet!.runnerOf(jobId, 'ocr'), { what: 'an OCR consumer to start the page', timeoutMs: 60_000 });
    const startedAt = Date.now();

    const final = (await pollUntilTerminal(pipeline.api.url, jobId, PAGE_MS + 90_000)).at(-1)!;
    expect(final).toMatchObject({ status: 'done' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(PAGE_MS);
    const ocrLines = fleet.logs().filter((l) => l.jobId === jobId && l.stage === 'ocr');
    const starts = ocrLines.filter((l) => l.message === 'stage started');
    // On a failure, the story of the page and every warning of the fleet, to tell a lapsed lock from a retry.
    if (starts.length !== 1) {
      const exits = fleet.live('ocr').map((p) => ({ pid: p.pid, exitCode: p.child.exitCode, signal: p.child.signalCode, output: p.outputTail(2_000) }));
      console.error(JSON.stringify({ story: fleet.logs().filter((l) => l.jobId === jobId || l.level !== 'info'), ocrConsumers: exits }, null, 1));
    }
    // One start, by one consumer, finished by it: no stall, no takeover, no lease lost.
    expect(ocrLines.filter((l) => l.message === 'stage started').map((l) => l.pid)).toHaveLength(1);
    expect(ocrLines.filter((l) => l.message === 'stage finished')).toHaveLength(1);
    expect(ocrLines.filter((l) => String(l.message).startsWith('lease lost'))).toEqual([]);
    expect(fleet.logs().filter((l) => l.message === 'job stalled; taking it over')).toEqual([]);
  }, PAGE_MS + 180_000);
});
