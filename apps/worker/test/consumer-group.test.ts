import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createLogger, PROCESS_IDENTITY } from '@readpack/logging';
import { Queue } from 'bullmq';
import { bullPrefix, consumerMetricsKey, QUEUES, stageJobId } from '@readpack/queues';
import { connectTestRedis, fixturePath, numberedPdf, waitFor } from '@readpack/testing';
import { openStorage } from '@readpack/package-store';
import type { RedisClient } from '@readpack/redis';
import { pollUntilTerminal, startPipeline, upload, type Pipeline, type StatusBody } from '../../../test/harness.js';
import { startConsumerGroup, type RunningGroup } from '../src/consumer-group.js';
import { startConsumer } from '../src/runner.js';

/**
 * One process consuming several stages (READPACK_STAGES=extract,assemble): each stage its own
 * BullMQ worker with its own concurrency and metrics labels, over one Redis connection; closing
 * the group lets the jobs in hand finish. The API runs in the test process, with no consumer of
 * its own; the group is the only consumer. A document with nothing to wait for is assembled by
 * its extract job there, into the package the assemble stage makes of it.
 */

let pipeline: Pipeline;
let group: RunningGroup | undefined;
let redis: RedisClient;
/** FAULT_BUSY holds an extract job whose filename has this for BUSY_MS of CPU in a worker thread. */
const BUSY_TEXT = 'drain-me';
const BUSY_MS = 3_000;

beforeAll(async () => {
  pipeline = await startPipeline({ EXTRACT_CONCURRENCY: '3', ASSEMBLE_CONCURRENCY: '5', FAULT_BUSY: `extract:${BUSY_MS}:${BUSY_TEXT}` }, { consumers: false });
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

/** The extraction an assemble job was given, as stored: what assemble reads back. */
async function storedExtraction(jobId: string): Promise<Record<string, unknown>> {
  const queue = new Queue(QUEUES.assemble.name, { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
  try {
    const sha256 = ((await queue.getJob(stageJobId(jobId, 'assemble')))?.data as { extraction?: { sha256: string } } | undefined)?.extraction?.sha256;
    if (!sha256) throw new Error(`the assemble job of ${jobId} names no extraction`);
    const storage = await openStorage(pipeline.config.dataDir, pipeline.config.storage.s3);
    return JSON.parse((await storage.blobs.readBuffer(sha256)).toString('utf8')) as Record<string, unknown>;
  } finally {
    await queue.close();
  }
}

/** The stage jobs BullMQ holds for a document: its extract job's return value, and whether an assemble job was added. */
async function stageJobs(jobId: string): Promise<{ extractResult: unknown; assembleJob: boolean }> {
  const queue = (stage: 'extract' | 'assemble') => new Queue(QUEUES[stage].name, { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
  const [extract, assemble] = [queue('extract'), queue('assemble')];
  try {
    const extractJob = await extract.getJob(stageJobId(jobId, 'extract'));
    return { extractResult: extractJob?.returnvalue, assembleJob: (await assemble.getJob(stageJobId(jobId, 'assemble'))) !== undefined };
  } finally {
    await Promise.all([extract.close(), assemble.close()]);
  }
}

/** The package as the API answers it, with the job's own id taken out (two jobs of one file differ by it alone). */
async function packageOf(jobId: string): Promise<string> {
  const res = await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`);
  expect(res.status).toBe(200);
  return (await res.text()).replaceAll(jobId, '<job>');
}

let inPlacePackage: string | undefined;

describe('a consumer group (several stages in one process)', () => {
  it('takes a DOCX to done in its extract job: no assemble job is queued to the same process', async () => {
    const jobId = await uploadDocx('word_sample.docx');
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ jobId, status: 'done' });
    expect(await stageJobs(jobId)).toEqual({ extractResult: { assembledInPlace: true, pages: 0 }, assembleJob: false });
    inPlacePackage = await packageOf(jobId);
  }, 90_000);

  it('counts the pages of a PDF it assembled in place as assemble\'s', async () => {
    const res = await upload(pipeline.api.url, [{ name: 'three-pages.pdf', data: (await numberedPdf({ pages: 3 })).bytes }]);
    const { jobId } = (await res.json()) as { jobId: string };
    expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ jobId, status: 'done' });
    expect(await stageJobs(jobId)).toEqual({ extractResult: { assembledInPlace: true, pages: 3 }, assembleJob: false });
    const pagesCounted = async () => {
      const snapshot = await redis.get(consumerMetricsKey(pipeline.config.redis.prefix, 'extract', PROCESS_IDENTITY));
      const metrics = snapshot ? (JSON.parse(snapshot) as { name: string; values: { value: number; labels: Record<string, string> }[] }[]) : [];
      return metrics.find((m) => m.name === 'readpack_stage_pages_total')?.values.find((v) => v.labels.stage === 'assemble')?.value || undefined;
    };
    expect(await waitFor(pagesCounted, { timeoutMs: 10_000, what: 'the pages in the extract consumer\'s metrics' })).toBe(3);
  }, 90_000);

  it('each stage pushes its own metrics, labelled by stage, with its own concurrency', async () => {
    expect(await waitFor(() => pushedGauge('extract', 'readpack_stage_concurrency'), { timeoutMs: 10_000, what: 'extract metrics' })).toBe(3);
    expect(await waitFor(() => pushedGauge('assemble', 'readpack_stage_concurrency'), { timeoutMs: 10_000, what: 'assemble metrics' })).toBe(5);
  });

  it('closing the group lets the job in hand finish (drain), then stops every stage', async () => {
    const jobId = await uploadDocx(`${BUSY_TEXT}.docx`);
    // In extract's busy spell: the job is in hand when the group is asked to stop.
    await waitFor(
      async () => {
        const res = await fetch(`${pipeline.api.url}/api/files/job/${jobId}`);
        const body = (await res.json()) as StatusBody;
        return body.status === 'processing' ? body : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the job to be in hand' },
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

  it('a process of extract alone queues the assemble job, and assemble makes the same package of the same file', async () => {
    const logger = createLogger({ level: 'error', component: 'test' });
    logger.silent = process.env.TEST_LOGS !== '1';
    const consumers = [await startConsumer('extract', pipeline.config, logger), await startConsumer('assemble', pipeline.config, logger)];
    try {
      // The first job of this file is done: an upload of it now is a job of its own (dedup joins active jobs only).
      const jobId = await uploadDocx('word_sample.docx');
      expect((await pollUntilTerminal(pipeline.api.url, jobId, 60_000)).at(-1)).toMatchObject({ jobId, status: 'done' });
      expect(await stageJobs(jobId)).toEqual({ extractResult: null, assembleJob: true });
      // Stored without what assemble derives from the blocks itself (toExtraction).
      const extraction = await storedExtraction(jobId);
      expect(Array.isArray(extraction.body) && extraction.body.length > 0).toBe(true);
      expect(Object.keys(extraction)).not.toContain('text');
      expect(Object.keys(extraction)).not.toContain('tables');
      expect(inPlacePackage).toBeDefined();
      expect(await packageOf(jobId)).toBe(inPlacePackage);
    } finally {
      await Promise.all(consumers.map((c) => c.close()));
    }
  }, 90_000);
});
