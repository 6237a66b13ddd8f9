import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { numberedPdf, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline, type StatusBody } from '../harness.js';
import { ConsumerFleet, FAST_LEASES, type LogLine } from './fleet.js';

// A 30-page PDF read in slices of 10 by two extract consumers (real processes, one job at a time
// each); the API runs in-process.
const SLICING = { PDF_SLICE_ABOVE: '20', PDF_SLICE_PAGES: '10', EXTRACT_CONCURRENCY: '1' };
const PAGES = 30;

let pipeline: Pipeline;
let fleet: ConsumerFleet | undefined;
let pdf: Awaited<ReturnType<typeof numberedPdf>>;

beforeAll(async () => {
  pipeline = await startPipeline({ ...FAST_LEASES, ...SLICING }, { consumers: false });
  pdf = await numberedPdf({ pages: PAGES, linesPerPage: 12 });
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});
afterAll(async () => pipeline?.stop());

async function uploadPdf(name: string): Promise<string> {
  const res = await upload(pipeline.api.url, [{ name, data: pdf.bytes }]);
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

/** The extract jobs of the document that started, by BullMQ job id, with the pids that started them. */
function extractStarts(logs: LogLine[], jobId: string): Map<string, number[]> {
  const starts = new Map<string, number[]>();
  for (const l of logs) {
    if (l.jobId !== jobId || l.stage !== 'extract' || l.message !== 'stage started') continue;
    const id = String(l.bullJobId);
    starts.set(id, [...(starts.get(id) ?? []), Number(l.pid)]);
  }
  return starts;
}

function expectMonotonicProgress(history: StatusBody[]): void {
  const progress = history.map((h) => h.progress);
  for (let i = 1; i < progress.length; i += 1) {
    expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    expect(progress[i]!.total).toBeGreaterThanOrEqual(progress[i - 1]!.total);
  }
  expect(progress.at(-1)).toEqual({ done: PAGES, total: PAGES });
}

async function expectPagesInOrder(jobId: string): Promise<void> {
  const pkg = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { text: string; pages: { index: number }[] };
  expect(pkg.pages.map((p) => p.index)).toEqual([...Array(PAGES).keys()]);
  const at = pdf.markers.map((marker) => pkg.text.indexOf(marker));
  expect(at.every((i) => i >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
}

describe('a large PDF sliced across extract consumers', () => {
  it('is read as three slices and a merge; the package has every page in order and progress counts pages upward', async () => {
    fleet = new ConsumerFleet(pipeline.config, SLICING);
    await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const jobId = await uploadPdf('sliced.pdf');
    const history = await pollUntilTerminal(pipeline.api.url, jobId, 90_000);
    expect(history.at(-1)).toMatchObject({ status: 'done' });
    expectMonotonicProgress(history);
    await expectPagesInOrder(jobId);
    const starts = extractStarts(fleet.logs(), jobId);
    expect([...starts.keys()].sort()).toEqual([jobId, `${jobId}-extract-merge`, `${jobId}-extract-slice-0`, `${jobId}-extract-slice-10`, `${jobId}-extract-slice-20`].sort());
    // Split by qpdf: each slice opened a PDF of its own pages, not the document.
    expect(fleet.logs().find((l) => l.jobId === jobId && l.message === 'sliced')).toMatchObject({ pages: PAGES, slices: 3, split: true });
  }, 120_000);

  it('sends its textless pages to OCR from the merged parts, in the language of the document\'s text, and keeps every page', async () => {
    fleet = new ConsumerFleet(pipeline.config, SLICING);
    await fleet.start('extract', 2);
    await fleet.start('render', 1);
    await fleet.start('ocr', 1);
    await fleet.start('assemble', 1);
    // Pages 5 and 25 (in the first and last slice) carry a running header and a page number only:
    // no text of their own and no CJK fonts, so the language comes from the text of the other pages,
    // which the merge tallies from the parts it stored.
    const scanned = await numberedPdf({ pages: PAGES, linesPerPage: 12, textless: [5, 25] });
    const res = await upload(pipeline.api.url, [{ name: 'scanned-pages.pdf', data: scanned.bytes }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    const history = await pollUntilTerminal(pipeline.api.url, jobId, 120_000);
    expect(history.at(-1)).toMatchObject({ status: 'done', progress: { done: PAGES, total: PAGES } });
    const pkg = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { pages: { index: number; ocr?: { lang: string; langSource: string } }[] };
    expect(pkg.pages.map((p) => p.index)).toEqual([...Array(PAGES).keys()]);
    expect(pkg.pages.filter((p) => p.ocr).map((p) => [p.index, p.ocr?.lang, p.ocr?.langSource])).toEqual([
      [5, 'eng', 'text'],
      [25, 'eng', 'text'],
    ]);
    expect(fleet.logs().find((l) => l.jobId === jobId && l.message === 'extracted')).toMatchObject({ ocrPages: 2, parts: 1 });
  }, 150_000);

  it('without qpdf the slices open the whole PDF, the reason logged; the document completes with every page in order', async () => {
    // PATH without qpdf for the extract consumers (node is started by its absolute path).
    fleet = new ConsumerFleet(pipeline.config, { ...SLICING, PATH: '/nonexistent-readpack-bin' });
    await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const jobId = await uploadPdf('sliced-unsplit.pdf');
    const history = await pollUntilTerminal(pipeline.api.url, jobId, 90_000);
    expect(history.at(-1)).toMatchObject({ status: 'done' });
    expectMonotonicProgress(history);
    await expectPagesInOrder(jobId);
    const logs = fleet.logs().filter((l) => l.jobId === jobId);
    expect(logs.find((l) => l.message === 'sliced')).toMatchObject({ pages: PAGES, slices: 3, split: false });
    expect(logs.filter((l) => l.reason === 'qpdf_missing')).toHaveLength(1);
  }, 120_000);

  it('a slice whose consumer is SIGKILLed mid-slice is taken over and run again alone; the document completes', async () => {
    // Every extract job of this file spends 1.5 s in a worker thread first: long enough to kill its consumer mid-slice.
    fleet = new ConsumerFleet(pipeline.config, { ...SLICING, FAULT_BUSY: 'extract:1500:sliced-slow' });
    await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const jobId = await uploadPdf('sliced-slow.pdf');
    const victim = await waitFor(
      async () => {
        const sliceStart = fleet!.logs().find((l) => l.jobId === jobId && l.message === 'stage started' && String(l.bullJobId).includes('-extract-slice-'));
        const proc = sliceStart && fleet!.live('extract').find((p) => p.pid === Number(sliceStart.pid));
        return proc && { proc, slice: String(sliceStart.bullJobId) };
      },
      { what: 'a consumer to start a slice', timeoutMs: 60_000 },
    );
    victim.proc.child.kill('SIGKILL');

    const history = await pollUntilTerminal(pipeline.api.url, jobId, 90_000);
    expect(history.at(-1)).toMatchObject({ status: 'done' });
    expectMonotonicProgress(history);
    await expectPagesInOrder(jobId);

    const starts = extractStarts(fleet.logs(), jobId);
    // The killed slice ran twice, on two consumers; every other extract job of the document once.
    // (Log lines are gathered process by process, so the two starts are not in time order here.)
    const victimStarts = starts.get(victim.slice) ?? [];
    expect(victimStarts).toHaveLength(2);
    expect(victimStarts).toContain(victim.proc.pid);
    expect(new Set(victimStarts).size).toBe(2);
    for (const [id, pids] of starts) if (id !== victim.slice) expect({ id, starts: pids.length }).toEqual({ id, starts: 1 });
    expect(starts.size).toBe(5);
  }, 150_000);
});
