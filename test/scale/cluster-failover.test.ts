import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobStateStore, type Lease } from '@readpack/job-state';
import { createConsumerConnection, createProducerConnection, deploymentKeyPrefix, isRedisUnavailableError, waitUntilReady, type RedisClient } from '@readpack/redis';
import { ThrowawayRedisCluster, uniqueName } from '@readpack/testing';

/**
 * The primary that serves a deployment's slot is SIGKILLed; its replica is promoted. Through the
 * failover the API's fail-fast connection either reads a job's record or fails with an error the
 * API answers 503 for — never "no such record" (a 404) — and afterwards the consumers' connection
 * writes to the promoted replica: the job it had started completes there.
 */
let cluster: ThrowawayRedisCluster;
let producer: RedisClient;
let consumer: RedisClient;

beforeAll(async () => {
  cluster = await ThrowawayRedisCluster.start();
  producer = createProducerConnection({ url: cluster.url, commandTimeoutMs: 1_000 }, 'failover-producer');
  consumer = createConsumerConnection({ url: cluster.url }, 'failover-consumer');
  // The producer profile reports errors by rejecting commands; its 'error' events are the same outage.
  producer.on('error', () => undefined);
  consumer.on('error', () => undefined);
  await Promise.all([waitUntilReady(producer), waitUntilReady(consumer)]);
}, 120_000);

afterAll(async () => {
  producer.disconnect();
  consumer.disconnect();
  await cluster.dispose();
});

const ttl = { queuedSeconds: 600, processingSeconds: 600, resultSeconds: 600 };
const lease: Lease = { series: 1, holder: 'extract:failover', epoch: 1, token: 'token-1' };

describe('Redis Cluster failover of the deployment slot', () => {
  it('reads answer the record or "unavailable", never nothing; writes resume on the promoted replica', async () => {
    const prefix = deploymentKeyPrefix('cluster', uniqueName('failover'));
    const api = new JobStateStore(producer, { prefix, ttl, leaseMs: 60_000, actor: 'api' });
    const worker = new JobStateStore(consumer, { prefix, ttl, leaseMs: 60_000, actor: 'worker' });
    const job = { jobId: 'job_failover1', tenant: 'default', source: { filename: 'a.pdf', mediaType: 'application/pdf', size: 1, sha256: 'ab'.repeat(32) } };
    expect(await api.createJob(job)).toBe(true);
    expect((await worker.start({ jobId: job.jobId }, 'extract', lease)).applied).toBe(true);
    // A write is acknowledged before it reaches the replica: wait until the replica has it, as a
    // WAIT-ing deployment would, so the kill below tests failover and not replication lag.
    expect(await consumer.call('WAIT', 1, 5_000)).toBe(1);

    const reads = { record: 0, unavailable: 0, missing: 0 };
    let failingOver = true;
    const reader = (async () => {
      while (failingOver) {
        try {
          const record = await api.getJob(job.jobId);
          if (record) reads.record += 1;
          else reads.missing += 1;
        } catch (error) {
          if (!isRedisUnavailableError(error)) throw error;
          reads.unavailable += 1;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const { killed, promoted } = await cluster.killPrimaryOf(api.jobKey(job.jobId));
    expect(promoted).not.toBe(killed);
    expect((await worker.complete({ jobId: job.jobId }, lease, { packageId: job.jobId, size: 1, sha256: 'cd'.repeat(32) })).applied).toBe(true);
    failingOver = false;
    await reader;
    expect(reads.missing).toBe(0);
    expect(reads.record).toBeGreaterThan(0);
    expect((await api.getJob(job.jobId))?.status).toBe('done');
    process.stdout.write(`cluster failover: reads during it ${JSON.stringify(reads)}\n`);
  }, 120_000);
});
