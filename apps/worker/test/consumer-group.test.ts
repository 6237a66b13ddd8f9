import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createLogger, PROCESS_IDENTITY } from '@readpack/logging';
import { consumerMetricsKey } from '@readpack/queues';
import { connectTestRedis, fixturePath, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { pollUntilTerminal, startPipeline, upload, type Pipeline, type StatusBody } from '../../../test/harness.js';
import { startConsumerGroup, type RunningGroup } from '../src/consumer-group.js';

/**
 * One process consuming several stages (READPACK_STAGES=extract,assemble): each stage its own
 * BullMQ worker with its own concurrency and metrics labels, over one Redis connection; closing
 * the group lets the jobs in hand finish. The API runs in the test process, with no consumer of
 * its own; the group is the only consumer.
 */

let pipeline: Pipeline;
let group: RunningGroup | undefined;
let redis: RedisClient;
/** FAULT_BUSY holds an assemble job whose filename has this for BUSY_MS of CPU in a worker thread. */
const BUSY_TEXT = 'drain-me';
const BUSY_MS = 3_000;

beforeAll(async () => {
  pipeline = await startPipeline({ EXTRACT_CONCURRENCY: '3', ASSEMBLE_CONCURRENCY: '5', FAULT_BUSY: `assemble:${BUSY_MS}:${BUSY_TEXT}` }, { consumers: false });
  const logger = createLogger({ level: 'error', component: 'test' });
  logger.silent = process.env.TEST_LOGS !== '1';
  group = await startConsumerGroup(['extract', 'assemble'], pipeline.config, logger);
  redis = connectTestRedis();
}, 60_000);

afterAll(async () => {
  await group?.close();
  await redis.quit();
  await pipeline.stop();
}, 60_000);

async function uploadDocx(name: string): Promise<string> {
  const res = await upload(pipeline.api.url, [{ name, data: await readFile(fixturePath('word_sample.docx')) }]);
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

/** The value of a gauge in the snapshot a consumer pushed to Redis for one stage. */
async function pushedGauge(stage: string, metric: string): Promise<number | undefined> {
  const snapshot = await redis.get(consumerMetricsKey(pipeline.config.redis.prefix, stage, PROCESS_IDENTITY));
  if (!snapshot) return undefined;
  const metrics = JSON.parse(snapshot) as { name: string; values: { value: number; labels: Record<string, string> }[] }[];
  return metrics.find((m) => m.name === metric)?.values.find((v) => v.labels.stage === stage)?.value;
}

describe('a consumer group (several stages in one process)', () => {
  it('takes a DOCX through extract and assemble to done', async () => {
    const jobId = await uploadDocx('word_sample.docx');
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ jobId, status: 'done' });
  }, 90_000);

  it('each stage pushes its own metrics, labelled by stage, with its own concurrency', async () => {
    expect(await waitFor(() => pushedGauge('extract', 'readpack_stage_concurrency'), { timeoutMs: 10_000, what: 'extract metrics' })).toBe(3);
    expect(await waitFor(() => pushedGauge('assemble', 'readpack_stage_concurrency'), { timeoutMs: 10_000, what: 'assemble metrics' })).toBe(5);
  });

  it('closing the group lets the job in hand finish (drain), then stops every stage', async () => {
    const jobId = await uploadDocx(`${BUSY_TEXT}.docx`);
    // In assemble's busy spell: the job is in hand when the group is asked to stop.
    await waitFor(
      async () => {
        const res = await fetch(`${pipeline.api.url}/api/files/job/${jobId}`);
        const body = (await res.json()) as StatusBody;
        return body.phase === 'assemble' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the job to reach assemble' },
    );
    const closing = group!.close();
    group = undefined;
    await closing;
    // No consumer runs any more: done can only have been written by the group before it closed.
    const res = await fetch(`${pipeline.api.url}/api/files/job/${jobId}`);
    expect(((await res.json()) as StatusBody).status).toBe('done');
    // The shared connection went with it.
    expect(await redis.client('LIST')).not.toContain(`readpack-extract+assemble:${PROCESS_IDENTITY}`);
  }, 60_000);
});
