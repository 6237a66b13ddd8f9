import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, STAGES } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl, twoColumnPdf, uniqueName } from '@readpack/testing';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { startConsumer, type RunningConsumer } from '../../apps/worker/src/runner.js';
import { upload } from '../harness.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { startApiProcess } from '../support/readpack-processes.js';
import type { ServiceProcess } from '../support/service-process.js';

/*
 * Server-Sent Events across real processes: two API processes (apps/api/dist/main.js) and the
 * consumers, here in the test process. The job is uploaded through API B and processed by the
 * consumers; API A, which neither received the upload nor runs a consumer, streams its changes.
 * A second client leaves A mid-job and resumes on B with Last-Event-ID.
 */

const prefix = uniqueName('sse');
let dataDir: string;
const apis: ServiceProcess[] = [];
let urlA: string;
let urlB: string;
let consumers: RunningConsumer[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-sse-'));
  const vars = { REDIS_URL: testRedisUrl(), READPACK_PREFIX: prefix, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn', EVENT_HEARTBEAT_MS: '500' };
  const [portA, portB] = [await findFreePort(), await findFreePort()];
  urlA = `http://127.0.0.1:${portA}`;
  urlB = `http://127.0.0.1:${portB}`;
  apis.push(await startApiProcess({ ...vars, PORT: String(portA) }), await startApiProcess({ ...vars, PORT: String(portB) }));
  const describeOutput = () => apis.map((a) => a.outputTail()).join('\n');
  await waitForHealthy(urlA, { timeoutMs: 60_000, describe: describeOutput });
  await waitForHealthy(urlB, { timeoutMs: 60_000, describe: describeOutput });
}, 90_000);

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.close(2_000)));
  await Promise.all(apis.map((a) => a.stop('SIGTERM', 15_000)));
  const redis = connectTestRedis();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** An open event stream: events as they arrive, and a way to leave. */
function follow(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const events: EventSourceMessage[] = [];
  const listeners = new Set<() => void>();
  const parser = createParser({ onEvent: (e) => (events.push(e), listeners.forEach((l) => l())) });
  const ended = (async () => {
    const res = await fetch(url, { headers, signal: abort.signal });
    expect(res.status).toBe(200);
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  const until = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${events.length} events of ${n} from ${url}`)), 60_000);
      const check = () => {
        if (events.length >= n) {
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      check();
    });
  return { events, ended, until, leave: () => abort.abort() };
}

const statusOf = (e: EventSourceMessage) => (JSON.parse(e.data) as { status: string }).status;

describe('SSE across API processes', () => {
  it('streams every change the consumers write, in order, to the end; a client that moves to another process with Last-Event-ID misses nothing', async () => {
    const res = await upload(urlB, [{ name: 'moving.pdf', data: (await twoColumnPdf({ pages: 4, seed: 21 })).bytes }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    const path = `/api/files/job/${jobId}/events`;

    const whole = follow(`${urlA}${path}`);
    const mover = follow(`${urlA}${path}`);
    // Both see `queued` before any consumer runs: what follows is streamed live.
    await whole.until(1);
    await mover.until(1);
    expect(statusOf(whole.events[0]!)).toBe('queued');

    const config = loadConfig({ REDIS_URL: testRedisUrl(), READPACK_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: 'error' });
    const logger = createLogger({ level: 'error', component: 'test' });
    logger.silent = process.env.TEST_LOGS !== '1';
    consumers = await Promise.all(STAGES.filter((s) => s !== 'convert' && s !== 'mineru').map((stage) => startConsumer(stage, config, logger)));

    await mover.until(2);
    mover.leave();
    await mover.ended;
    const lastSeen = mover.events.at(-1)!.id!;
    const resumed = follow(`${urlB}${path}`, { 'Last-Event-ID': lastSeen });
    await Promise.all([whole.ended, resumed.ended]);

    const redis = connectTestRedis();
    const recorded = await redis.xrange(`${prefix}:job-events:${jobId}`, '-', '+');
    await redis.quit();
    const expected = recorded.map(([id, fields]) => [id, fields[1]]);
    // Every change, in order, once, ending with the terminal one.
    expect(whole.events.map((e) => [e.id, e.data])).toEqual(expected);
    expect(statusOf(whole.events.at(-1)!)).toBe('done');
    expect(whole.events.filter((e) => statusOf(e) === 'processing').length).toBeGreaterThan(1);
    // The mover's two connections, put together, are the same sequence.
    expect([...mover.events, ...resumed.events].map((e) => [e.id, e.data])).toEqual(expected);
  }, 120_000);
});
