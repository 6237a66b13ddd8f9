import type { CollectedSpan } from './otlp-receiver.js';

/** One span name's time across the traces summarised. */
export interface SpanTimeRow {
  name: string;
  count: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * totalMs ÷ the summed end-to-end time of the traces. Nested spans each count in full (a stage
   * span includes its parse) and parallel ones add up (pages OCR-read at once), so shares can sum
   * past 1: read each row alone, as "this much of a job's time is spent in here".
   */
  share: number;
}

export interface TimeBreakdown {
  traces: number;
  /** Per trace: its first span's start to its last span's end (upload received → terminal write). */
  endToEnd: { totalMs: number; p50Ms: number; p99Ms: number };
  /** Largest total first. */
  rows: SpanTimeRow[];
}

/** Nearest-rank percentile of ascending `sorted` (0 for none). */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function stats(values: number[]): { totalMs: number; p50Ms: number; p99Ms: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { totalMs: sorted.reduce((sum, v) => sum + v, 0), p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

/**
 * Where the time of a job goes: the spans an OTLP receiver collected (startOtlpReceiver), grouped
 * by trace (one trace per uploaded document) and by span name. `traceIds` limits it to some
 * traces (e.g. the jobs of one benchmark run).
 */
export function whereTheTimeGoes(spans: readonly CollectedSpan[], options: { traceIds?: ReadonlySet<string> } = {}): TimeBreakdown {
  const chosen = options.traceIds ? spans.filter((s) => options.traceIds!.has(s.traceId)) : spans;
  const byTrace = new Map<string, { start: number; end: number }>();
  const byName = new Map<string, number[]>();
  for (const span of chosen) {
    const bounds = byTrace.get(span.traceId);
    byTrace.set(span.traceId, bounds ? { start: Math.min(bounds.start, span.startMs), end: Math.max(bounds.end, span.endMs) } : { start: span.startMs, end: span.endMs });
    const durations = byName.get(span.name) ?? [];
    durations.push(span.endMs - span.startMs);
    byName.set(span.name, durations);
  }
  const endToEnd = stats([...byTrace.values()].map((b) => b.end - b.start));
  const rows = [...byName.entries()]
    .map(([name, durations]) => ({ name, count: durations.length, ...stats(durations), share: endToEnd.totalMs > 0 ? stats(durations).totalMs / endToEnd.totalMs : 0 }))
    .sort((a, b) => b.totalMs - a.totalMs);
  return { traces: byTrace.size, endToEnd, rows };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

/** The breakdown as a Markdown table (for docs/benchmarks.md), every figure from `breakdown`. */
export function renderTimeTable(breakdown: TimeBreakdown): string {
  const { traces, endToEnd } = breakdown;
  const head = [
    `${traces} job${traces === 1 ? '' : 's'}; end to end p50 ${ms(endToEnd.p50Ms)} ms, p99 ${ms(endToEnd.p99Ms)} ms.`,
    '',
    '| span | count | total ms | p50 ms | p99 ms | share of end-to-end |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const rows = breakdown.rows.map((r) => `| \`${r.name}\` | ${r.count} | ${ms(r.totalMs)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${(r.share * 100).toFixed(1)} % |`);
  return [...head, ...rows].join('\n');
}
