import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { twoColumnPdf, connectTestRedis } from '@readpack/testing';
import { ReadpackClient, type JobStatus } from '../../apps/cli/src/parse/client.js';
import { followJob } from '../../apps/cli/src/parse/progress-source.js';
import { startPipeline, upload, type Pipeline } from '../harness.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

checkResponsesAgainstOpenApi();

/*
 * The job is uploaded to and processed by one Readpack (API + consumers); its events are read from
 * another API that shares only Redis with it (its own connections and StreamReaders, no
 * consumers). What the reader sees can only have come through Redis.
 */
let writer: Pipeline;
let reader: Pipeline;

beforeAll(async () => {
  writer = await startPipeline();
  reader = await startPipeline({ READPACK_PREFIX: writer.config.redis.prefix, EVENT_HEARTBEAT_MS: '200' }, { consumers: false });
});
afterAll(async () => {
  await reader?.api.close();
  await writer?.stop();
});

interface Received {
  events: EventSourceMessage[];
  comments: string[];
}

/** Reads an event stream until it ends (or `until` says stop, or `ms` passed). */
async function readEvents(url: string, headers: Record<string, string> = {}, options: { ms?: number; until?: (r: Received) => boolean } = {}): Promise<Received & { status: number; headers: Headers }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.ms ?? 60_000);
  const received: Received = { events: [], comments: [] };
  const parser = createParser({ onEvent: (e) => received.events.push(e), onComment: (c) => received.comments.push(c) });
  const res = await fetch(url, { headers, signal: abort.signal });
  try {
    if (res.body) {
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (options.until?.(received)) break;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { ...received, status: res.status, headers: res.headers };
}

describe('GET /api/files/job/:id/events', () => {
  it('streams every change written by other processes, in order, ending with the terminal event; Last-Event-ID resumes', async () => {
    const pdf = await twoColumnPdf({ pages: 3 });
    const res = await upload(writer.api.url, [{ name: 'three.pdf', data: pdf.bytes }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };

    const stream = await readEvents(`${reader.api.url}/api/files/job/${jobId}/events`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');

    const views = stream.events.map((e) => JSON.parse(e.data) as { status: string; phase: string; progress: { done: number; total: number } });
    expect(stream.events.every((e) => e.event === 'status')).toBe(true);
    expect(views[0]!.status).toBe('queued');
    expect(views.at(-1)!.status).toBe('done');
    expect(views.filter((v) => v.status === 'done')).toHaveLength(1);
    expect(views.some((v) => v.status === 'processing')).toBe(true);
    // Every change the scripts recorded, and in their order: the events are the stream, one for one.
    const redis = connectTestRedis();
    const prefix = writer.config.redis.prefix;
    const recorded = await redis.xrange(`${prefix}:job-events:${jobId}`, '-', '+');
    // The stream expires with its record, and `<prefix>:job:*` still names records only (the janitor scans it).
    const [streamTtl, recordTtl] = [await redis.pttl(`${prefix}:job-events:${jobId}`), await redis.pttl(`${prefix}:job:${jobId}`)];
    expect(streamTtl).toBeGreaterThan(0);
    expect(Math.abs(streamTtl - recordTtl)).toBeLessThan(5_000);
    for (const key of await redis.keys(`${prefix}:job:*`)) expect(await redis.type(key)).toBe('hash');
    await redis.quit();
    expect(stream.events.map((e) => [e.id, e.data])).toEqual(recorded.map(([id, fields]) => [id, fields[1]]));
    const done = views.map((v) => v.progress.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));

    // Reconnect after each event in turn: exactly the rest follows, nothing missed or repeated;
    // after the terminal one, nothing does, and the stream ends at once.
    for (let k = 0; k < stream.events.length; k += 1) {
      const resumed = await readEvents(`${reader.api.url}/api/files/job/${jobId}/events`, { 'Last-Event-ID': stream.events[k]!.id! });
      expect(resumed.events.map((e) => e.id)).toEqual(stream.events.slice(k + 1).map((e) => e.id));
    }
  }, 90_000);

  it('is what the CLI follows: every status document, from the stream, to the terminal one', async () => {
    const res = await upload(writer.api.url, [{ name: 'cli.pdf', data: (await twoColumnPdf({ pages: 2, seed: 41 })).bytes }]);
    const { jobId } = (await res.json()) as { jobId: string };
    const seen: JobStatus[] = [];
    const requests: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      requests.push(String(input));
      return realFetch(input, init);
    }) as typeof fetch;
    let final: JobStatus;
    try {
      final = await followJob(new ReadpackClient({ server: reader.api.url }), jobId, (status) => seen.push(status));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(final.status).toBe('done');
    expect(seen[0]!.status).toBe('queued');
    // Streamed, not polled: one request, to /events.
    expect(requests).toEqual([`${reader.api.url}/api/files/job/${jobId}/events`]);
  }, 60_000);

  it('keeps an idle stream open with heartbeat comments, ends it at shutdown, and answers a missing job with 404', async () => {
    // Uploaded to the API without consumers: the job stays queued.
    const pdf = await twoColumnPdf({ pages: 1 });
    const idle = await startPipeline({ EVENT_HEARTBEAT_MS: '200' }, { consumers: false });
    let stopped = false;
    try {
      const res = await upload(idle.api.url, [{ name: 'one.pdf', data: pdf.bytes }]);
      const { jobId } = (await res.json()) as { jobId: string };
      const stream = await readEvents(`${idle.api.url}/api/files/job/${jobId}/events`, {}, { until: (r) => r.comments.length >= 2 });
      expect(stream.events.map((e) => (JSON.parse(e.data) as { status: string }).status)).toEqual(['queued']);
      expect(stream.comments.slice(0, 2).map((c) => c.trim())).toEqual(['heartbeat', 'heartbeat']);
      const missing = await fetch(`${idle.api.url}/api/files/job/job_${'A'.repeat(22)}/events`);
      expect(missing.status).toBe(404);
      // A stream still open at shutdown is ended by it, rather than holding the server open.
      const open = readEvents(`${idle.api.url}/api/files/job/${jobId}/events`, {}, { ms: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      stopped = true;
      await idle.stop();
      const ended = await open;
      expect(ended.events).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      if (!stopped) await idle.stop();
    }
  }, 30_000);

  it('streams a batch: each member change as `job`, then the batch as `status`; another tenant gets the 404 of a missing id', async () => {
    const ALPHA = 'alpha-key-0123456789abcdef';
    const BETA = 'beta-key-0123456789abcdefgh';
    const keyed = await startPipeline({ API_KEYS: `${ALPHA}:alpha,${BETA}:beta` });
    try {
      const form = new FormData();
      for (const seed of [31, 32]) form.append('files', new Blob([(await twoColumnPdf({ pages: 1, seed })).bytes]), `b${seed}.pdf`);
      const res = await fetch(`${keyed.api.url}/api/files/batch`, { method: 'POST', body: form, headers: { authorization: `Bearer ${ALPHA}` } });
      expect(res.status).toBe(202);
      const { batchId, files } = (await res.json()) as { batchId: string; files: { jobId: string }[] };

      const asBeta = { authorization: `Bearer ${BETA}` };
      const missingJob = await fetch(`${keyed.api.url}/api/files/job/job_${'A'.repeat(22)}/events`, { headers: asBeta });
      const othersJob = await fetch(`${keyed.api.url}/api/files/job/${files[0]!.jobId}/events`, { headers: asBeta });
      expect(othersJob.status).toBe(404);
      expect(await othersJob.json()).toEqual(await missingJob.json());
      expect((await fetch(`${keyed.api.url}/api/files/batch/${batchId}/events`, { headers: asBeta })).status).toBe(404);
      expect((await fetch(`${keyed.api.url}/api/files/job/${files[0]!.jobId}/events`)).status).toBe(401);

      const stream = await readEvents(`${keyed.api.url}/api/files/batch/${batchId}/events`, { authorization: `Bearer ${ALPHA}` });
      expect(stream.status).toBe(200);
      const last = stream.events.at(-1)!;
      expect(last.event).toBe('status');
      expect(JSON.parse(last.data)).toMatchObject({ batchId, status: 'done', completed: 2, total: 2 });
      // Resuming after the last member change: only the batch's document, then the end.
      const resumed = await readEvents(`${keyed.api.url}/api/files/batch/${batchId}/events`, { authorization: `Bearer ${ALPHA}`, 'Last-Event-ID': last.id! }, { ms: 10_000 });
      expect(resumed.events.map((e) => e.event)).toEqual(['status']);
      const members = stream.events.slice(0, -1);
      expect(members.every((e) => e.event === 'job')).toBe(true);
      for (const { jobId } of files) {
        const statuses = members.map((e) => JSON.parse(e.data) as { jobId: string; status: string }).filter((v) => v.jobId === jobId).map((v) => v.status);
        expect(statuses[0]).toBe('queued');
        expect(statuses.at(-1)).toBe('done');
      }
      // Read from the start once the batch is over: every member's `done` comes before the
      // batch's document (the first member's `done` used to close the stream, the batch being
      // settled already, and the second member's was never sent).
      const replay = await readEvents(`${keyed.api.url}/api/files/batch/${batchId}/events`, { authorization: `Bearer ${ALPHA}` });
      expect(replay.events.at(-1)?.event).toBe('status');
      const replayed = replay.events.slice(0, -1).map((e) => JSON.parse(e.data) as { jobId: string; status: string });
      for (const { jobId } of files) expect(replayed.filter((v) => v.jobId === jobId).at(-1)?.status).toBe('done');
    } finally {
      await keyed.stop();
    }
  }, 90_000);
});
