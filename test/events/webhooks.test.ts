import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@readpack/logging';
import { twoColumnPdf, waitFor } from '@readpack/testing';
import { Queue } from 'bullmq';
import { bullPrefix, WEBHOOK_DLQ } from '@readpack/queues';
import { connectTestRedis } from '@readpack/testing';
import { listDeadLetters, replayDeadLetters } from '../../apps/cli/src/ops/dlq.js';
import { startWebhookConsumer, type RunningWebhookConsumer } from '../../apps/worker/src/webhooks/consumer.js';
import { pollUntilTerminal, startPipeline, type Pipeline } from '../harness.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

checkResponsesAgainstOpenApi();

const SECRET = 'whsec_test_0123456789abcdef';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

let pipeline: Pipeline;
let webhooks: RunningWebhookConsumer;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const flakyCalls = new Map<string, number>();
/** What /down answers: 503 until the test brings the receiver back. */
let downAnswers = 503;

beforeAll(async () => {
  // The receiver is on loopback: allowed here by the allow-list, as a deployment would allow an internal host.
  pipeline = await startPipeline({ WEBHOOK_SECRETS: `default=${SECRET}`, WEBHOOK_ALLOW_HOSTS: '127.0.0.1/32', WEBHOOK_BACKOFF_MS: '100', WEBHOOK_ATTEMPTS: '5' });
  const logger = createLogger({ level: 'error', component: 'test' });
  logger.silent = process.env.TEST_LOGS !== '1';
  webhooks = await startWebhookConsumer(pipeline.config, logger);
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      let answered = 200;
      if (path.startsWith('/down')) answered = downAnswers;
      if (path.startsWith('/flaky')) {
        // Three 500s per delivery, then 200.
        const key = String(req.headers['readpack-idempotency-key']);
        const calls = (flakyCalls.get(key) ?? 0) + 1;
        flakyCalls.set(key, calls);
        answered = calls <= 3 ? 500 : 200;
      }
      received.push({ path, headers: req.headers, body, answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await webhooks?.close(2_000);
  await pipeline?.stop();
  await new Promise((r) => receiver?.close(r));
});

async function uploadWith(callbackUrl: string | undefined, data: Uint8Array, name: string): Promise<Response> {
  const form = new FormData();
  if (callbackUrl !== undefined) form.append('callbackUrl', callbackUrl);
  form.append('file', new Blob([data]), name);
  return fetch(`${pipeline.api.url}/api/files`, { method: 'POST', body: form });
}

/** What docs/webhooks.md tells a receiver to do. */
function verified(headers: IncomingHttpHeaders, body: string): boolean {
  const header = String(headers['readpack-signature'] ?? '');
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const expected = createHmac('sha256', SECRET).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
}

const forJob = (jobId: string) => received.filter((r) => (JSON.parse(r.body) as { data: { jobId: string } }).data.jobId === jobId);

describe('webhooks', () => {
  it('delivers exactly one signed event per terminal state (done, failed)', async () => {
    const good = await uploadWith(`${receiverUrl}/ok`, (await twoColumnPdf({ pages: 1, seed: 11 })).bytes, 'good.pdf');
    expect(good.status).toBe(202);
    const bad = await uploadWith(`${receiverUrl}/ok`, new TextEncoder().encode('%PDF-1.7\nnot really a pdf\n%%EOF\n'), 'bad.pdf');
    expect(bad.status).toBe(202);
    const goodId = ((await good.json()) as { jobId: string }).jobId;
    const badId = ((await bad.json()) as { jobId: string }).jobId;
    expect((await pollUntilTerminal(pipeline.api.url, goodId, 60_000)).at(-1)!.status).toBe('done');
    expect((await pollUntilTerminal(pipeline.api.url, badId, 60_000)).at(-1)!.status).toBe('failed');
    await waitFor(async () => (forJob(goodId).length >= 1 && forJob(badId).length >= 1 ? true : undefined), { timeoutMs: 30_000, what: 'both deliveries' });
    // Room for a duplicate to show up, if there were one.
    await new Promise((r) => setTimeout(r, 1_500));

    for (const [jobId, status] of [[goodId, 'done'], [badId, 'failed']] as const) {
      const deliveries = forJob(jobId);
      expect(deliveries).toHaveLength(1);
      const [delivery] = deliveries;
      const event = JSON.parse(delivery!.body) as { id: string; type: string; data: { jobId: string; status: string } };
      expect(event.type).toBe(`job.${status}`);
      expect(event.data).toMatchObject({ jobId, status });
      expect(delivery!.headers['content-type']).toBe('application/json');
      expect(delivery!.headers['readpack-idempotency-key']).toBe(event.id);
      expect(event.id).toBe(`${jobId}-s1-${status}`);
      expect(verified(delivery!.headers, delivery!.body)).toBe(true);
      // A tampered body does not verify.
      expect(verified(delivery!.headers, delivery!.body.replace(status, 'tampered'))).toBe(false);
    }
  }, 120_000);

  it('retries with backoff: a receiver that answers 500 three times gets the event on the fourth try', async () => {
    const res = await uploadWith(`${receiverUrl}/flaky`, (await twoColumnPdf({ pages: 1, seed: 12 })).bytes, 'flaky.pdf');
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    await pollUntilTerminal(pipeline.api.url, jobId, 60_000);
    await waitFor(async () => (forJob(jobId).some((r) => r.answered === 200) ? true : undefined), { timeoutMs: 30_000, what: 'a successful delivery' });
    await new Promise((r) => setTimeout(r, 1_000));
    const attempts = forJob(jobId);
    expect(attempts.map((a) => a.answered)).toEqual([500, 500, 500, 200]);
    // The same event every time: same key, same bytes; each attempt signed (fresh timestamp).
    expect(new Set(attempts.map((a) => a.headers['readpack-idempotency-key'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    expect(attempts.every((a) => verified(a.headers, a.body))).toBe(true);
  }, 120_000);

  it('refuses at upload a private, link-local or loopback target the allow-list does not name', async () => {
    const pdf = (await twoColumnPdf({ pages: 1, seed: 13 })).bytes;
    for (const target of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/', 'http://100.64.1.1/', 'http://192.168.1.1/', 'ftp://example.com/']) {
      const res = await uploadWith(target, pdf, 'private.pdf');
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; field: string } };
      expect(body.error).toMatchObject({ code: 'invalid_callback_url', field: 'callbackUrl' });
      if (!target.startsWith('ftp')) expect(body.error.message).toMatch(/private, loopback or link-local/);
    }
  }, 30_000);

  it('dead-letters a delivery that used its attempts; the ops CLI lists it and replays it with the same event', async () => {
    const res = await uploadWith(`${receiverUrl}/down`, (await twoColumnPdf({ pages: 1, seed: 14 })).bytes, 'down.pdf');
    const { jobId } = (await res.json()) as { jobId: string };
    await pollUntilTerminal(pipeline.api.url, jobId, 60_000);
    const redis = connectTestRedis();
    const dlq = new Queue(WEBHOOK_DLQ, { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
    try {
      await waitFor(async () => ((await dlq.getJobs(['failed'])).length === 1 ? true : undefined), { timeoutMs: 30_000, what: 'the parked dead letter' });
      expect(forJob(jobId).map((r) => r.answered)).toEqual([503, 503, 503, 503, 503]);
      const ops = { config: pipeline.config, connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) };
      const printed: string[] = [];
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string) => printed.push(String(chunk)) > 0) as typeof process.stdout.write;
      try {
        expect(await listDeadLetters(ops, ['webhook'])).toBe(0);
        downAnswers = 200;
        expect(await replayDeadLetters(ops, 'webhook', jobId)).toBe(0);
      } finally {
        process.stdout.write = write;
      }
      expect(printed.join('')).toContain(jobId);
      await waitFor(async () => (forJob(jobId).some((r) => r.answered === 200) ? true : undefined), { timeoutMs: 30_000, what: 'the replayed delivery' });
      const attempts = forJob(jobId);
      expect(attempts).toHaveLength(6);
      expect(new Set(attempts.map((a) => a.headers['readpack-idempotency-key'])).size).toBe(1);
      expect(verified(attempts[5]!.headers, attempts[5]!.body)).toBe(true);
    } finally {
      await dlq.close();
      await redis.quit();
    }
  }, 120_000);
});
