import { describe, expect, it } from '@jest/globals';
import type { JobStatusView } from '../src/api/types.js';
import { explainFailure } from '../src/upload/failure-reasons.js';
import { forwardOnly, progressDisplay } from '../src/upload/job-progress.js';

const view = (fields: Partial<JobStatusView>): JobStatusView => ({
  jobId: 'job_x',
  status: 'processing',
  phase: 'extract',
  progress: { done: 0, total: 0 },
  source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1 },
  ...fields,
});

describe('a file bar', () => {
  it('moves forward through the stages and reaches 100 only when done', () => {
    const percents = [
      view({ status: 'queued', phase: 'queued' }),
      view({ phase: 'extract' }),
      view({ phase: 'ocr', progress: { done: 1, total: 4 } }),
      view({ phase: 'ocr', progress: { done: 3, total: 4 } }),
      view({ phase: 'assemble', progress: { done: 4, total: 4 } }),
      view({ status: 'done', phase: 'view_ready', progress: { done: 4, total: 4 } }),
    ].map((v) => progressDisplay(v).percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(new Set(percents).size).toBe(percents.length);
    expect(percents.slice(0, -1).every((p) => p < 100)).toBe(true);
    expect(percents.at(-1)).toBe(100);
  });

  it('counts pages only while OCR runs, where progress is pages', () => {
    expect(progressDisplay(view({ phase: 'ocr', progress: { done: 2, total: 5 } })).label).toBe('Recognising text (OCR) · 2 of 5 pages');
    // MinerU's phase keeps extract's step count: no made-up page numbers.
    expect(progressDisplay(view({ phase: 'mineru', progress: { done: 1, total: 2 } })).label).toBe('Analysing the layout (MinerU)');
  });

  it('never moves back on a late answer', () => {
    expect(forwardOnly(60, 30)).toBe(60);
    expect(forwardOnly(30, 60)).toBe(60);
  });
});

describe('a failure in words', () => {
  it('says what happened and what to do, for known codes, OCR page codes and anything else', () => {
    expect(explainFailure('corrupt_document').reason).toMatch(/damaged/);
    expect(explainFailure('corrupt_document').action).toMatch(/save or export it again/);
    expect(explainFailure('ocr_engine_crashed').reason).toMatch(/Text recognition/);
    const unknown = explainFailure('something_new');
    expect(unknown.reason).toBeTruthy();
    expect(unknown.action).toMatch(/error code/);
  });
});
