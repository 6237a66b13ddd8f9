import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, type Stage } from '@readpack/config';
import { Queue } from 'bullmq';
import { bullPrefix, QUEUES } from '@readpack/queues';
import { connectRedis, deploymentKeyPrefix } from '@readpack/redis';
import { assertValidPackage, fixturePath, ThrowawayRedisCluster, uniqueName, waitFor } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { upload, type StatusBody } from '../harness.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { startApiProcess, startConsumerProcess } from '../support/readpack-processes.js';
import { jsonLines, type ServiceProcess } from '../support/service-process.js';
import { uploadFixture } from '../support/uploads.js';

/**
 * Readpack on a real Redis Cluster (three primaries, one replica each), every part a process of
 * its own with REDIS_URL=redis+cluster://…: the corpus to `done` (a scanned PDF fans out OCR page
 * children through a BullMQ flow), the dedup race, and the primary that serves the deployment's
 * slot SIGKILLed mid-run while its replica takes over. Every key of the deployment lives in that
 * one slot (docs/redis-keys.md), so the kill takes the whole deployment's store down for the
 * failover: the API may answer 503 meanwhile, never 404, and every job still ends `done` — idle
 * consumers included, whose blocking waits are reset by BullMQ's watchdog during the failover
 * (docs/redis-keys.md, "A whole pipeline through a failover").
 */

const CORPUS = ['pdflatex-image.pdf', 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf', 'word_sample.docx', 'Book1.xlsx'];
const DEDUP_FILE = 'footnotes.docx';
const DEDUP_UPLOADS = 50;
const FAILOVER_FILES = ['pdflatex-image.pdf', 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf', 'markitdown-test.docx', 'table-multiple.xlsx', 'word_tables.docx', 'jo.pdf'];

let cluster: ThrowawayRedisCluster | undefined;
let dataDir: string | undefined;
let base: string;
let vars: Record<string, string>;
let api: ServiceProcess | undefined;
const consumers = new Map<Stage, ServiceProcess>();
const retired: ServiceProcess[] = [];

function outputs(): string {
  return [api, ...consumers.values(), ...retired].flatMap((p) => (p ? [p.outputTail(3_000)] : [])).join('\n');
}

beforeAll(async () => {
  cluster = await ThrowawayRedisCluster.start();
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-cluster-data-'));
  const port = await findFreePort();
  base = `http://127.0.0.1:${port}`;
  vars = {
    REDIS_URL: cluster.url,
    READPACK_PREFIX: uniqueName('cluster'),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    // 'stage started' lines (info) are how the dedup race counts parses.
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SHUTDOWN_GRACE_MS: '5000',
  };
  api = await startApiProcess(vars);
  for (const stage of STAGES) consumers.set(stage, await startConsumerProcess(stage, vars));
  await waitForHealthy(base, { timeoutMs: 90_000, describe: outputs });
}, 180_000);

afterAll(async () => {
  await Promise.all([api, ...consumers.values(), ...retired].map((p) => p?.stop('SIGTERM', 15_000)));
  await cluster?.dispose();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** Status answers seen while polling, by HTTP status: a 404 would tell a client its job is gone. */
const answers = new Map<number, number>();

async function pollUntilTerminal(jobId: string, timeoutMs: number): Promise<StatusBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/api/files/job/${jobId}`).catch(() => undefined);
    if (res) answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
    if (res?.status === 404) throw new Error(`job ${jobId} answered 404: ${await res.text()}`);
    if (res?.status === 200) {
      const body = (await res.json()) as StatusBody;
      if (body.status === 'done' || body.status === 'failed') return body;
    } else {
      await res?.body?.cancel();
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} not terminal after ${timeoutMs} ms\n${await queueCounts()}\n${outputs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** BullMQ's job counts per stage queue, for the message of a job that never ended. */
async function queueCounts(): Promise<string> {
  const connection = connectRedis(vars.REDIS_URL!, { maxRetriesPerRequest: 3 });
  try {
    const prefix = bullPrefix(deploymentKeyPrefix('cluster', vars.READPACK_PREFIX!));
    const counts = await Promise.all(
      STAGES.map(async (stage) => {
        const queue = new Queue(QUEUES[stage].name, { connection, prefix });
        const result = await queue.getJobCounts();
        await queue.close();
        return `${stage}: ${JSON.stringify(result)}`;
      }),
    );
    return counts.join('\n');
  } finally {
    connection.disconnect();
  }
}

async function validPackage(jobId: string): Promise<void> {
  const res = await fetch(`${base}/api/files/job/${jobId}/package`);
  expect(res.status).toBe(200);
  assertValidPackage(await res.json());
}

/** 'stage started' log lines of the extract consumers, per job id: each is one parse. */
function extractStarts(): Map<string, number> {
  const starts = new Map<string, number>();
  const extract = [consumers.get('extract'), ...retired].flatMap((p) => (p ? jsonLines(p.stdoutLines()) : []));
  for (const line of extract) {
    if (line.stage === 'extract' && line.message === 'stage started') starts.set(String(line.jobId), (starts.get(String(line.jobId)) ?? 0) + 1);
  }
  return starts;
}

describe('Readpack on a 3-primary Redis Cluster', () => {
  it('the corpus reaches done with valid packages, OCR page children included', async () => {
    const jobs = await Promise.all(CORPUS.map((name) => uploadFixture(base, name)));
    const finals = await Promise.all(jobs.map((j) => pollUntilTerminal(j.jobId, 240_000)));
    expect(finals.map((f) => f.status)).toEqual(CORPUS.map(() => 'done'));
    for (const job of jobs) await validPackage(job.jobId);
    // The scanned PDF went through OCR page by page: its progress counted its three pages.
    const scanned = finals[CORPUS.indexOf('MEDRPT-2024-PAT-3847_medical_report_scan.pdf')]!;
    expect(scanned.progress).toMatchObject({ done: 3, total: 3 });
  }, 300_000);

  it(`${DEDUP_UPLOADS} concurrent identical uploads make one job and one parse`, async () => {
    // With no extract consumer during the burst the job stays queued, so every upload must join it.
    const extract = consumers.get('extract')!;
    await extract.stop('SIGTERM', 15_000);
    retired.push(extract);
    consumers.delete('extract');
    const data = await readFile(fixturePath(DEDUP_FILE));
    const replies = await Promise.all(
      Array.from({ length: DEDUP_UPLOADS }, async () => {
        const res = await upload(base, [{ name: DEDUP_FILE, data }]);
        return { status: res.status, body: (await res.json()) as { jobId: string; deduplicated: boolean } };
      }),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(DEDUP_UPLOADS).fill(202));
    const jobIds = new Set(replies.map((r) => r.body.jobId));
    expect(jobIds.size).toBe(1);
    const [jobId] = [...jobIds] as [string];
    expect(replies.filter((r) => !r.body.deduplicated)).toHaveLength(1);

    consumers.set('extract', await startConsumerProcess('extract', vars));
    expect((await pollUntilTerminal(jobId, 120_000)).status).toBe('done');
    await validPackage(jobId);
    await waitFor(async () => (extractStarts().has(jobId) ? true : undefined), { what: 'the extract log line' });
    expect(extractStarts().get(jobId)).toBe(1);
  }, 180_000);

  it('the primary of the deployment slot is SIGKILLed mid-run: its replica takes over, no job is lost or stuck, no 404', async () => {
    answers.clear();
    const jobs = [];
    for (const name of FAILOVER_FILES) jobs.push(await uploadFixture(base, name));
    const slotKey = `${deploymentKeyPrefix('cluster', vars.READPACK_PREFIX!)}:job:${jobs[0]!.jobId}`;
    const polls = Promise.all(jobs.map((j) => pollUntilTerminal(j.jobId, 300_000)));
    // Mid-run: the scanned PDF's OCR pages take far longer than the uploads did.
    const scanned = jobs[FAILOVER_FILES.indexOf('MEDRPT-2024-PAT-3847_medical_report_scan.pdf')]!;
    const before = (await (await fetch(`${base}/api/files/job/${scanned.jobId}`)).json()) as StatusBody;
    expect(['queued', 'processing']).toContain(before.status);
    const killedAt = Date.now();
    const { killed, promoted } = await cluster!.killPrimaryOf(slotKey);
    const failoverMs = Date.now() - killedAt;
    expect(promoted).not.toBe(killed);
    const finals = await polls;
    const doneMs = Date.now() - killedAt;
    expect(finals.map((f) => f.status)).toEqual(FAILOVER_FILES.map(() => 'done'));
    for (const job of jobs) await validPackage(job.jobId);
    expect(answers.get(404)).toBeUndefined();
    expect([...answers.keys()].every((status) => status === 200 || status === 503)).toBe(true);
    // Numbers for the report (docs/redis-keys.md quotes a run).
    process.stdout.write(
      `cluster failover: primary ${killed} killed, replica ${promoted} serving after ${failoverMs} ms; every job done ${doneMs} ms after the kill; status answers ${JSON.stringify(Object.fromEntries(answers))}\n`,
    );
  }, 360_000);
});
