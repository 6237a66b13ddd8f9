import type { JobPhase, JobStatusView } from '../api/types.js';

/** What a file's bar shows: a percentage that only moves forward through the stages, and words. */
export interface ProgressDisplay {
  percent: number;
  label: string;
}

/**
 * Each stage owns a span of the bar, rough shares of the time a typical document spends there.
 * Only OCR counts pages (`progress` is pages read of all pages); elsewhere `progress` counts the
 * pipeline's own steps, so a stage's bar stands at the start of its span rather than pretending.
 */
const SPANS: Record<JobPhase, [number, number]> = {
  queued: [2, 5],
  extract: [5, 30],
  ocr: [30, 85],
  mineru: [30, 85],
  assemble: [85, 97],
  view_ready: [100, 100],
};

const PHASE_WORDS: Record<JobPhase, string> = {
  queued: 'Waiting in the queue',
  extract: 'Reading the document',
  ocr: 'Recognising text (OCR)',
  mineru: 'Analysing the layout (MinerU)',
  assemble: 'Putting the package together',
  view_ready: 'Ready',
};

export function progressDisplay(view: JobStatusView): ProgressDisplay {
  if (view.status === 'done') return { percent: 100, label: 'Done' };
  const [from, to] = SPANS[view.phase] ?? SPANS.queued;
  const { done, total } = view.progress;
  const countsPages = view.phase === 'ocr' && total > 0;
  const fraction = countsPages ? Math.min(1, Math.max(0, done / total)) : 0;
  const percent = Math.round(from + (to - from) * fraction);
  const pages = countsPages ? ` · ${Math.min(done, total)} of ${total} pages` : '';
  if (view.status === 'failed') return { percent, label: 'Failed' };
  return { percent, label: `${PHASE_WORDS[view.phase] ?? 'Working'}${pages}` };
}

/** The highest percentage seen wins: a bar never moves backwards, even if a poll answers late. */
export function forwardOnly(previous: number, next: number): number {
  return Math.max(previous, next);
}
