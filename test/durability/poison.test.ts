import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { bullPrefix, deadLetterQueueName } from '@readpack/queues';
import { connectTestRedis, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';
import { serviceEnv } from '../support/env.js';
import { builtScript } from '../support/service-process.js';
import { ConsumerFleet, FAST_LEASES } from './fleet.js';

const run = promisify(execFile);
let pipeline: Pipeline;
let redis: RedisClient;
let fleet: ConsumerFleet | undefined;

beforeAll(async () => {
  pipeline = await startPipeline(FAST_LEASES, { consumers: false });
  redis = connectTestRedis();
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});
afterAll(async () => {
  await redis.quit();
  await pipeline?.stop();
});

function ops(...args: string[]) {
  const env = serviceEnv({ REDIS_URL: pipeline.config.redis.url, READPACK_PREFIX: pipeline.config.redis.prefix, DATA_DIR: pipeline.config.dataDir });
  return run(process.execPath, [builtScript('apps/cli/dist/main.js'), 'ops', ...args], { env });
}

describe('a poison document', () => {
  it('that keeps killing its consumer ends failed/stalled in the DLQ, and a replay re-runs it', async () => {
    // Consumers that exit whenever they start a file named like this one: a test-only fault.
    fleet = new ConsumerFleet(pipeline.config, { FAULT_EXIT_ON_FILENAME: 'poison-pill' });
    await fleet.start('extract', 2);
    fleet.keepAlive();
    const res = await upload(pipeline.api.url, [{ name: 'poison-pill.txt', data: Buffer.from('this text kills its parser') }]);
    const { jobId } = (await res.json()) as { jobId: string };

    const final = (await pollUntilTerminal(pipeline.api.url, jobId, 90_000)).at(-1)!;
    expect(final).toMatchObject({ status: 'failed', error: { code: 'stalled' } });
    const starts = fleet.logs().filter((l) => l.jobId === jobId && l.message === 'stage started');
    expect(starts.length).toBe(3); // maxStalledCount 2: the third stall ends it

    const dlq = new Queue(deadLetterQueueName('extract'), { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
    const parked = await waitFor(async () => {
      const jobs = await dlq.getJobs(['failed']);
      return jobs.length === 1 ? jobs[0] : undefined;
    }, { what: 'the dead letter to be parked' });
    expect(parked.data).toMatchObject({ stage: 'extract', payload: { jobId }, error: { code: 'stalled' } });
    const listing = await ops('dlq', 'list', 'extract');
    expect(listing.stdout).toContain(jobId);

    // Fix the "bug" (consumers without the fault), then replay from the DLQ.
    await fleet.stop();
    fleet = new ConsumerFleet(pipeline.config);
    await fleet.startAll(1);
    const replay = await ops('dlq', 'replay', 'extract', jobId);
    expect(replay.stdout).toContain(`replay queued: extract-dlq ${jobId}`);

    const status = async () => (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}`)).json()) as Record<string, unknown>;
    await waitFor(async () => ((await status()).series === 2 ? true : undefined), { what: 'the replay to start a new series' });
    const replayed = (await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)!;
    expect(replayed).toMatchObject({ status: 'done' });
    expect(await status()).toMatchObject({ status: 'done', series: 2, history: [{ series: 1, code: 'stalled', phase: 'extract' }] });
    expect(await dlq.getJobs(['failed'])).toHaveLength(0);
    await dlq.close();
  }, 150_000);
});
