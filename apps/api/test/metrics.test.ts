import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { corpusManifest, fixturePath, waitFor } from '@readpack/testing';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../../../test/harness.js';
import { checkResponsesAgainstOpenApi } from '../../../test/support/openapi.js';

/*
 * /metrics after a run of the corpus: its counts and histograms must be what ran. The scrape's
 * cost is measured and printed (timing goals belong in benches, not in assertions).
 */

// The uploads, polls and packages of the run are checked against the OpenAPI document too.
checkResponsesAgainstOpenApi();

type Sample = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

const LOCAL = /^(application\/pdf|application\/vnd\.openxmlformats)/;

describe('/metrics after a corpus run', () => {
  let pipeline: Pipeline;
  let metricsUrl: string;
  const scrape = async () => parse(await (await fetch(metricsUrl)).text());
  const cases = corpusManifest().filter((f) => LOCAL.test(f.media_type) && f.has_text_layer === true && !/encrypt/i.test(f.kind));
  let pages = 0;

  beforeAll(async () => {
    pipeline = await startPipeline({}, { stages: ['extract', 'render', 'ocr', 'mineru', 'assemble'] });
    metricsUrl = `${pipeline.api.url}/metrics`;
    const jobIds: string[] = [];
    for (const entry of cases) {
      const res = await upload(pipeline.api.url, [{ name: entry.name, data: await readFile(fixturePath(entry.name)) }]);
      jobIds.push(((await res.json()) as { jobId: string }).jobId);
    }
    const corrupt = await upload(pipeline.api.url, [{ name: 'broken.pdf', data: Buffer.from('%PDF-1.7\n1 0 obj <</Type /Catalog /Pages 9 0 R>> endobj\nbroken beyond repair') }]);
    jobIds.push(((await corrupt.json()) as { jobId: string }).jobId);
    for (const jobId of jobIds) await pollUntilTerminal(pipeline.api.url, jobId, 170_000);
    for (const jobId of jobIds.slice(0, -1)) {
      const pkg = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { pages?: unknown[] };
      pages += pkg.pages?.length ?? 0;
    }
  }, 180_000);
  afterAll(async () => pipeline?.stop());

  it('counts every HTTP request by route template and status, with latency histograms', async () => {
    const samples = await scrape();
    expect(total(samples, 'readpack_http_requests_total', { method: 'POST', route: '/api/files', status: '202' })).toBe(cases.length + 1);
    expect(total(samples, 'readpack_http_request_duration_seconds_count', { method: 'POST', route: '/api/files', status: '202' })).toBe(cases.length + 1);
    expect(total(samples, 'readpack_http_requests_total', { route: '/api/files/job/:jobId/package', status: '200' })).toBe(cases.length);
    expect(total(samples, 'readpack_http_requests_total', { route: '/api/files/job/:jobId', status: '200' })).toBeGreaterThanOrEqual(cases.length + 1);
    // No raw path (ids) ever becomes a label.
    expect(samples.some((s) => /job_[A-Za-z0-9_-]{22}/.test(s.labels.route ?? ''))).toBe(false);
  });

  it('has the consumers\' stage counts, durations, pages and failures, pushed through Redis', async () => {
    // Consumers push every 2 s and a scrape reads Redis at most once a second. A final failure is
    // counted inside the job, before its record turns `failed`; the run's end (jobs_total, duration,
    // active) only on BullMQ's 'failed' event after it, so a push can fall between the two: wait
    // until nothing is active, when every run has ended in the snapshot too.
    const samples = await waitFor(
      async () => {
        const s = await scrape();
        const settled =
          total(s, 'readpack_stage_jobs_total', { stage: 'assemble', outcome: 'completed' }) === cases.length &&
          total(s, 'readpack_job_failures_total') === 1 &&
          total(s, 'readpack_stage_active_jobs') === 0;
        return settled ? s : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: 'consumer metrics in /metrics' },
    );
    expect(total(samples, 'readpack_job_failures_total', { stage: 'extract', code: 'corrupt_document' })).toBe(1);
    const extractRuns = total(samples, 'readpack_stage_jobs_total', { stage: 'extract' });
    expect(extractRuns).toBeGreaterThanOrEqual(cases.length + 1);
    expect(total(samples, 'readpack_stage_duration_seconds_count', { stage: 'extract' })).toBe(extractRuns);
    expect(total(samples, 'readpack_stage_pages_total', { stage: 'assemble' })).toBe(pages);
    expect(total(samples, 'readpack_stage_active_jobs')).toBe(0);
    expect(total(samples, 'readpack_stage_concurrency', { stage: 'ocr' })).toBe(pipeline.config.stages.ocr.concurrency);
    expect(total(samples, 'readpack_consumers', { stage: 'extract' })).toBe(1);
    expect(total(samples, 'readpack_takeovers_total')).toBe(0);
  });

  it('reads queue depths per stage and state, and dead-letter sizes', async () => {
    const samples = await scrape();
    for (const queue of ['extract', 'render', 'ocr', 'mineru', 'assemble']) {
      expect(samples.some((s) => s.name === 'readpack_queue_jobs' && s.labels.queue === queue && s.labels.state === 'waiting')).toBe(true);
    }
    expect(total(samples, 'readpack_queue_jobs', { state: 'active' })).toBe(0);
    // A corrupt PDF is the user's mistake: counted by code, never dead-lettered (docs/errors.md).
    expect(total(samples, 'readpack_dlq_jobs', { queue: 'extract-dlq' })).toBe(0);
  });

  it('has every metric the Grafana dashboard (docs/grafana-dashboard.json) queries', async () => {
    const names = new Set((await scrape()).map((s) => s.name));
    const dashboard = await readFile(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const queried = new Set(dashboard.match(/readpack_[a-z_]+/g) ?? []);
    expect(queried.size).toBeGreaterThan(8);
    for (const name of queried) expect([name, names.has(name)]).toEqual([name, true]);
  });

  it('is guarded like Bull Board', async () => {
    const keyed = await startPipeline({ API_KEYS: 'tenant-key-0123456789abcdef:acme', ADMIN_TOKEN: 'admin-token-0123456789abcdef' }, { consumers: false });
    try {
      expect((await fetch(`${keyed.api.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${keyed.api.url}/metrics`, { headers: { authorization: 'Bearer tenant-key-0123456789abcdef' } })).status).toBe(401);
      const res = await fetch(`${keyed.api.url}/metrics`, { headers: { authorization: 'Bearer admin-token-0123456789abcdef' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    } finally {
      await keyed.stop();
    }
  });

  it('answers a scrape in milliseconds (figure printed)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) await (await fetch(metricsUrl)).text(); // warm-up (JIT, first Redis read)
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await (await fetch(metricsUrl)).text();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
    process.stdout.write(`/metrics scrape, in-process API, 300 scrapes: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms\n`);
    expect(times.length).toBe(300);
  });
});
