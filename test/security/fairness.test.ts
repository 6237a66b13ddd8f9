import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue, type Job } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { connectTestRedis, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, type Pipeline } from '../harness.js';
import { TenantClient } from './support/client.js';
import { checkResponsesAgainstOpenApi } from '../support/openapi.js';

// Every answer these tests fetch must match the OpenAPI document (test/support/openapi.ts).
checkResponsesAgainstOpenApi();

const ALICE_KEY = 'alice-key-fairness-0123456789';
const BOB_KEY = 'bob-key-fairness-0123456789ab';
const PAGES_OF_WORK = 200;

/**
 * Fairness between tenants with open-source BullMQ: every extract job's priority is its tenant's
 * backlog when it was admitted (1 + active jobs). Alice's 200 queued documents get priorities
 * 1…200; Bob, with nothing running, gets priority 1 and is served next.
 *
 * The bound: a job admitted while its tenant has k active jobs starts after at most k + 1 queued
 * jobs of each other tenant, plus the jobs already running (EXTRACT_CONCURRENCY × consumers). For
 * Bob (k = 0) with one consumer at concurrency 1: at most the job running when he uploaded and
 * one more of Alice's.
 */
describe('a tenant flooding the queue does not starve another', () => {
  let pipeline: Pipeline;
  let redis: RedisClient;
  let extractQueue: Queue;
  beforeAll(async () => {
    pipeline = await startPipeline({
      API_KEYS: `${ALICE_KEY}:alice,${BOB_KEY}:bob`,
      EXTRACT_CONCURRENCY: '1',
      MAX_BATCH_FILES: String(PAGES_OF_WORK),
      UPLOAD_RATE_PER_MINUTE: '1000',
      MAX_ACTIVE_JOBS_PER_TENANT: '1000',
    });
    redis = connectTestRedis();
    extractQueue = new Queue('extract', { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
  });
  afterAll(async () => {
    await extractQueue?.close();
    await redis?.quit();
    await pipeline?.stop();
  });

  it("Bob's one document finishes before Alice's 200 pages of work drain, within the stated bound", async () => {
    const alice = new TenantClient(pipeline.api.url, ALICE_KEY);
    const bob = new TenantClient(pipeline.api.url, BOB_KEY);
    // 200 one-page documents, each with a little real parsing to do.
    const pages = Array.from({ length: PAGES_OF_WORK }, (_, i) => ({
      name: `page-${String(i).padStart(3, '0')}.csv`,
      data: Buffer.from(Array.from({ length: 400 }, (_, r) => `${i},${r},alpha,beta,gamma,"quoted, cell"`).join('\n')),
    }));
    const batch = await alice.uploadBatch(pages);
    expect(batch.status).toBe(202);
    const { batchId } = (await batch.json()) as { batchId: string };
    const bobJob = await bob.submit({ name: 'bob.txt', data: Buffer.from('one small document from another tenant') });

    // Alice's jobs that had left the queue (running or finished) by the time Bob's upload answered:
    // an upper bound of those that started before Bob's job was even enqueued.
    const queuedAlice = (await extractQueue.getJobs(['prioritized', 'wait'])).filter((j) => j.data.tenant === 'alice').length;
    const startedBeforeBob = PAGES_OF_WORK - queuedAlice;
    expect(startedBeforeBob + 1).toBeLessThan(PAGES_OF_WORK); // Alice still had a backlog to jump

    const bobFinal = await bob.terminal(bobJob, 60_000);
    expect(bobFinal.status).toBe('done');
    const bobExtract = (await extractQueue.getJob(bobJob))!;
    expect(bobExtract.opts.priority).toBe(1);

    // Wait for Alice's batch: she is served too (nobody starves), and the order can be read back.
    const aliceDone = await waitFor(
      async () => {
        const res = await alice.get(`/api/files/batch/${batchId}`);
        const view = (await res.json()) as { status: string; files: { jobId: string }[] };
        return view.status === 'done' ? view : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: "Alice's batch to finish" },
    );
    const aliceExtracts = (await Promise.all(aliceDone.files.map((f) => extractQueue.getJob(f.jobId)))) as Job[];
    expect(aliceExtracts.map((j) => j.opts.priority).sort((a, b) => a! - b!)).toEqual(Array.from({ length: PAGES_OF_WORK }, (_, i) => i + 1));
    const aheadOfBob = aliceExtracts.filter((j) => j.processedOn! < bobExtract.processedOn!).length;
    expect(aheadOfBob).toBeLessThanOrEqual(startedBeforeBob + 1);

    // Bob was done while Alice still had documents to go.
    const aliceRecords = await Promise.all(aliceDone.files.map((f) => alice.status(f.jobId)));
    const aliceAfterBob = aliceRecords.filter((r) => Date.parse(r.updatedAt) > Date.parse(bobFinal.updatedAt));
    expect(aliceAfterBob.length).toBeGreaterThan(0);
  }, 180_000);
});
