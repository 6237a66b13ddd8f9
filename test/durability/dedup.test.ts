import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { bullPrefix, QUEUES } from '@readpack/queues';
import { assertValidPackage, connectTestRedis, fixturePath, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';
import { IN_PROCESS_API } from '../chaos/settings.js';
import { killPids, processesWithEnv } from '../support/procfs.js';
import { ConsumerFleet } from './fleet.js';

/**
 * Active-only dedup end to end: many concurrent uploads of one file while its job is still
 * running make one job and one parse; an upload after that job ended makes a new job and a new
 * package. The consumers (real processes, so their logs can be counted) start only once every
 * upload has answered: the job is then `queued` throughout the uploads, so all of them must join
 * it. With consumers already running, a fast parse could end the job mid-burst and a late upload
 * would rightly start a new one — the rule is "join while active", not "join forever".
 */
const UPLOADS = 50;
const FILE = 'word_sample.docx';

interface Accepted {
  jobId: string;
  status: string;
  deduplicated: boolean;
}

interface PackageView {
  jobId: string;
  packageId: string;
  text: string;
  assets: { sha256: string; url: string; mediaType: string }[];
}

let pipeline: Pipeline;
let fleet: ConsumerFleet | undefined;
let redis: RedisClient;
let extractQueue: Queue;
let data: Buffer;

beforeAll(async () => {
  pipeline = await startPipeline(IN_PROCESS_API, { consumers: false });
  redis = connectTestRedis();
  extractQueue = new Queue(QUEUES.extract.name, { connection: redis, prefix: bullPrefix(pipeline.config.redis.prefix) });
  data = await readFile(fixturePath(FILE));
});

afterAll(async () => {
  await fleet?.stop();
  if (pipeline) killPids(processesWithEnv('READPACK_PREFIX', pipeline.config.redis.prefix));
  await extractQueue?.close();
  await redis?.quit();
  await pipeline?.stop();
}, 60_000);

async function uploadFile(): Promise<{ status: number; body: Accepted }> {
  const res = await upload(pipeline.api.url, [{ name: FILE, data }]);
  return { status: res.status, body: (await res.json()) as Accepted };
}

async function packageOf(jobId: string): Promise<PackageView> {
  const res = await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`);
  expect(res.status).toBe(200);
  const manifest = (await res.json()) as PackageView;
  assertValidPackage(manifest);
  return manifest;
}

/** 'stage started' lines of the extract stage, per job id: each is one parse. */
function extractStarts(): Map<string, number> {
  const starts = new Map<string, number>();
  for (const line of fleet!.logs()) {
    if (line.stage === 'extract' && line.message === 'stage started') starts.set(String(line.jobId), (starts.get(String(line.jobId)) ?? 0) + 1);
  }
  return starts;
}

async function extractJobIds(): Promise<string[]> {
  const jobs = await extractQueue.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'], 0, -1);
  return jobs.map((j) => String(j.id)).sort();
}

describe(`${UPLOADS} concurrent uploads of one file`, () => {
  let first: string;

  it('all answer 202 with one jobId; one created it, the others joined it; one extract job was queued', async () => {
    const answers = await Promise.all(Array.from({ length: UPLOADS }, () => uploadFile()));
    expect(answers.map((a) => a.status)).toEqual(Array(UPLOADS).fill(202));
    const jobIds = new Set(answers.map((a) => a.body.jobId));
    expect(jobIds.size).toBe(1);
    first = [...jobIds][0]!;
    expect(answers.filter((a) => !a.body.deduplicated)).toHaveLength(1);
    expect(answers.filter((a) => a.body.deduplicated)).toHaveLength(UPLOADS - 1);
    expect(answers.every((a) => a.body.status === 'queued')).toBe(true);
    expect(await extractJobIds()).toEqual([first]);
  });

  it('the job is parsed once and ends done', async () => {
    fleet = new ConsumerFleet(pipeline.config);
    await fleet.startAll(1);
    expect((await pollUntilTerminal(pipeline.api.url, first, 60_000)).at(-1)).toMatchObject({ status: 'done' });
    // The consumers' log lines reach us through a pipe: wait for the parse to show, then count.
    await waitFor(async () => (extractStarts().size > 0 ? true : undefined), { what: 'the extract log line' });
    expect(Object.fromEntries(extractStarts())).toEqual({ [first]: 1 });
    expect(await extractJobIds()).toEqual([first]);
  }, 90_000);

  it('an upload after the job is done makes a new job and a new package with new asset URLs', async () => {
    const again = await uploadFile();
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ deduplicated: false, status: 'queued' });
    const second = again.body.jobId;
    expect(second).not.toBe(first);
    expect((await pollUntilTerminal(pipeline.api.url, second, 60_000)).at(-1)).toMatchObject({ status: 'done' });
    await waitFor(async () => (extractStarts().has(second) ? true : undefined), { what: 'the second parse in the logs' });
    expect(Object.fromEntries(extractStarts())).toEqual({ [first]: 1, [second]: 1 });
    expect(await extractJobIds()).toEqual([first, second].sort());

    const [one, two] = [await packageOf(first), await packageOf(second)];
    expect([one.packageId, two.packageId]).toEqual([first, second]);
    expect(one.text).toBe(two.text);
    // The same image bytes (content-addressed), reached through each package's own asset ids.
    expect(one.assets.length).toBeGreaterThan(0);
    expect(two.assets.map((a) => a.sha256)).toEqual(one.assets.map((a) => a.sha256));
    const oneUrls = new Set(one.assets.map((a) => a.url));
    expect(two.assets.filter((a) => oneUrls.has(a.url))).toEqual([]);
    for (const [a, b] of one.assets.map((asset, i) => [asset, two.assets[i]!] as const)) {
      const [ra, rb] = [await fetch(a.url), await fetch(b.url)];
      expect([ra.status, rb.status]).toEqual([200, 200]);
      expect(Buffer.from(await rb.arrayBuffer()).equals(Buffer.from(await ra.arrayBuffer()))).toBe(true);
    }
    // The first job is untouched by the second.
    const res = await fetch(`${pipeline.api.url}/api/files/job/${first}`);
    expect(await res.json()).toMatchObject({ jobId: first, status: 'done', result: { packageId: first } });
  }, 90_000);
});
