import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config, Stage } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { openStorage, type Storage } from '@readpack/package-store';
import { secretKeyPath } from '@readpack/secrets';
import { assertValidPackage, containsSnippet, fixturePath, NetnsSandbox, ThrowawayRedis, waitFor } from '@readpack/testing';
import { Redis } from 'ioredis';
import { startApi, type RunningApi } from '../../apps/api/src/server.js';
import { FAST_LEASES, type LogLine } from '../durability/fleet.js';
import { pollUntilTerminal, testConfig, upload, type StatusBody } from '../harness.js';
import { serviceEnv } from '../support/env.js';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3rver.js';
import { builtScript, jsonLines, startProcess, type ServiceProcess } from '../support/service-process.js';

/**
 * Consumers as other hosts: two consumer groups, each in a network namespace of its own whose only
 * link is a private veth to this host, where Redis, the object store and the API run. Both groups
 * take jobs of a batch; group A is cut off (its link taken down) while it holds leases; group B
 * takes A's jobs over. A's link comes back while B still works on them: every write A then makes
 * for the jobs it lost is refused by the fence, every job ends `done` with a valid package, and
 * nothing moves once the jobs are done.
 */
const GROUP_STAGES: readonly Stage[] = ['extract', 'assemble'];
/**
 * Every extract consumer spins this long (in a worker thread: the lease stays renewed) before
 * parsing a document of the batch. It makes the cut land mid-job, seconds after A started; and B,
 * spinning again after its takeover, still holds the lease when A returns, so A's writes meet the
 * fence rather than a finished record (which refuses them too, but by its status alone).
 */
const SLOW_MS = 12_000;
const SLOW_NAME = 'netns-slow';
/** Four documents: each group's extract consumer takes two at a time (EXTRACT_CONCURRENCY 2). */
const DOCUMENTS = 4;
const FIXTURE = 'REPAIR-2022-INV-001_multipage.pdf';
const SNIPPET = 'ZAVA AUTO REPAIR';
const GROUP_ENV = { FAULT_BUSY: `extract:${SLOW_MS}:${SLOW_NAME}`, EXTRACT_CONCURRENCY: '2' };

interface Consumer {
  group: string;
  stage: Stage;
  process: ServiceProcess;
  dataDir: string;
}

let sandbox: NetnsSandbox | undefined;
let redis: ThrowawayRedis | undefined;
let s3: LoopbackS3 | undefined;
let config: Config;
let api: RunningApi | undefined;
let client: Redis | undefined;
let storage: Storage;
const consumers: Consumer[] = [];

beforeAll(async () => {
  if (process.getuid?.() !== 0) {
    throw new Error('test/scale/netns.test.ts creates network namespaces (`ip netns`) and needs root: run `npm run test:scale` as root, as .ci/run does');
  }
  sandbox = await NetnsSandbox.create('rpnt', ['a', 'b']);
  // Protected mode would refuse every client that is not on loopback: the links are private to this test.
  redis = await ThrowawayRedis.start({ extraArgs: ['--bind', '127.0.0.1', ...sandbox.hostAddresses(), '--protected-mode', 'no'] });
  s3 = await startLoopbackS3('readpack-netns', sandbox.hostAddresses());
  config = await testConfig({ ...s3.env, REDIS_URL: redis.url, ...FAST_LEASES });
  const logger = createLogger({ level: 'error', component: 'test' });
  logger.silent = process.env.TEST_LOGS !== '1';
  api = await startApi(config, logger);
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  storage = await openStorage(config.dataDir, config.storage.s3);
}, 60_000);

afterAll(async () => {
  // TEST_LOGS=1: every consumer's log, minus the reconnect attempts a cut-off host repeats every few seconds.
  if (process.env.TEST_LOGS === '1') for (const c of consumers) process.stderr.write(`${c.group} ${c.stage}\n${c.process.stdoutLines().filter((l) => !l.includes('"error":"connect E')).join('\n')}\n`);
  await Promise.all(consumers.map((c) => c.process.stop('SIGKILL', 5_000)));
  for (const c of consumers) await rm(c.dataDir, { recursive: true, force: true });
  await client?.quit();
  await api?.close();
  if (config) await rm(config.dataDir, { recursive: true, force: true });
  await s3?.stop();
  await redis?.dispose();
  await sandbox?.dispose();
}, 60_000);

/** A stage consumer of `group`, started inside its namespace, reaching Redis and S3 only over the group's link. */
async function startConsumer(group: string, stage: Stage, extraEnv: Record<string, string> = {}): Promise<Consumer> {
  const host = sandbox!.link(group).hostAddress;
  const dataDir = await mkdtemp(join(tmpdir(), `readpack-netns-${group}-`));
  await copyFile(secretKeyPath(config.dataDir), secretKeyPath(dataDir));
  const env = serviceEnv({
    ...s3!.env,
    S3_ENDPOINT: s3!.endpointOn(host),
    REDIS_URL: `redis://${host}:${redis!.port}`,
    READPACK_PREFIX: config.redis.prefix,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...FAST_LEASES,
    ...extraEnv,
  });
  const { command, args } = sandbox!.commandIn(group, [process.execPath, builtScript('apps/worker/dist/main.js'), stage]);
  const consumer = { group, stage, process: await startProcess(command, args, { env }), dataDir };
  consumers.push(consumer);
  return consumer;
}

async function startGroup(group: string, extraEnv: Record<string, string> = {}): Promise<Consumer[]> {
  const started: Consumer[] = [];
  for (const stage of GROUP_STAGES) started.push(await startConsumer(group, stage, extraEnv));
  return started;
}

function logsOf(group: string): LogLine[] {
  return consumers.filter((c) => c.group === group).flatMap((c) => jsonLines(c.process.stdoutLines()));
}

/** `host:pid` of each consumer of the group as it names itself (its log lines; records' `updatedBy`). */
async function identitiesOf(group: string): Promise<Set<string>> {
  const members = consumers.filter((c) => c.group === group);
  return waitFor(
    async () => {
      const named = members.map((c) => jsonLines(c.process.stdoutLines()).find((l) => typeof l.host === 'string' && typeof l.pid === 'number'));
      return named.every((l) => l !== undefined) ? new Set(named.map((l) => `${String(l.host)}:${String(l.pid)}`)) : undefined;
    },
    { what: `every consumer of group ${group} to log`, timeoutMs: 30_000 },
  );
}

const recordKey = (jobId: string) => `${config.redis.prefix}:job:${jobId}`;

/** The record's live leases: `lease.<holder>` fields holding `<epoch>:<token>` with a token. */
function liveLeases(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([field, value]) => field.startsWith('lease.') && !value.endsWith(':')));
}

/** Reads the records' `updatedBy` every 50 ms until `until` settles: who wrote last, as time goes by. */
async function sampleWriters(jobIds: readonly string[], until: Promise<unknown>): Promise<Map<string, string[]>> {
  const writers = new Map(jobIds.map((id) => [id, [] as string[]]));
  let over = false;
  const stop = () => {
    over = true;
  };
  until.then(stop, stop);
  while (!over) {
    for (const id of jobIds) writers.get(id)!.push((await client!.hget(recordKey(id), 'updatedBy')) ?? '');
    await new Promise((r) => setTimeout(r, 50));
  }
  return writers;
}

/** Everything a late write could move: the records, the leases index, the packages and when they were written. */
async function snapshot(jobIds: readonly string[]): Promise<unknown> {
  const records = await Promise.all(jobIds.map((id) => client!.hgetall(recordKey(id))));
  const packages = await Promise.all(
    records.map(async (r) => {
      const { packageId } = JSON.parse(r.result ?? '{}') as { packageId?: string };
      return packageId === undefined ? undefined : { packageId, writtenAt: await storage.packages.writtenAt(packageId) };
    }),
  );
  return { records, packages, leases: await client!.zrange(`${config.redis.prefix}:leases`, 0, -1, 'WITHSCORES') };
}

describe('two consumer groups on private links; group A cut off mid-job', () => {
  it('B takes A\'s jobs over and finishes them; A\'s writes after it returns are refused', async () => {
    const links = { a: sandbox!.link('a'), b: sandbox!.link('b') };
    await startGroup('a', GROUP_ENV);
    await startGroup('b', GROUP_ENV);
    const aIds = await identitiesOf('a');
    const bIds = await identitiesOf('b');

    const data = await readFile(fixturePath(FIXTURE));
    const files = Array.from({ length: DOCUMENTS }, (_, n) => ({ name: `${SLOW_NAME}-${n}.pdf`, data, field: 'files' }));
    const res = await upload(api!.url, files, '/api/files/batch');
    expect(res.status).toBe(202);
    const jobIds = ((await res.json()) as { files: { jobId: string }[] }).files.map((f) => f.jobId);
    expect(jobIds).toHaveLength(DOCUMENTS);

    // Every job started, each by one group: its start was the last write, and it has one live lease.
    const started = await waitFor(
      async () => {
        const records = await Promise.all(jobIds.map((id) => client!.hgetall(recordKey(id))));
        const held = records.every((r) => r.status === 'processing' && Object.keys(liveLeases(r)).length === 1 && (aIds.has(r.updatedBy ?? '') || bIds.has(r.updatedBy ?? '')));
        return held ? records : undefined;
      },
      { what: 'both groups to hold the leases of every job', timeoutMs: 60_000 },
    );
    const aJobs = jobIds.filter((_, i) => aIds.has(started[i]!.updatedBy!));
    const aEpochs = new Map(aJobs.map((id) => [id, Number(Object.values(liveLeases(started[jobIds.indexOf(id)]!))[0]!.split(':')[0])]));
    // The consumer whose leases are about to be taken: no write of its may land after the takeover.
    const staleWriters = new Set(aJobs.map((id) => started[jobIds.indexOf(id)]!.updatedBy!));
    expect(aJobs.length).toBeGreaterThan(0);
    expect(await sandbox!.canConnect('a', links.a.hostAddress, redis!.port)).toBe(true);

    await sandbox!.cut('a');
    const cutAt = Date.now();
    // Both Redis and the object store are out of A's reach; B's link is untouched.
    expect(await sandbox!.canConnect('a', links.a.hostAddress, redis!.port)).toBe(false);
    expect(await sandbox!.canConnect('a', links.a.hostAddress, Number(new URL(s3!.endpointOn(links.a.hostAddress)).port))).toBe(false);
    expect(await sandbox!.canConnect('b', links.b.hostAddress, redis!.port)).toBe(true);

    const finished = Promise.all(jobIds.map((id) => pollUntilTerminal(api!.url, id, 240_000)));
    const samples = sampleWriters(jobIds, finished);

    // B takes A's jobs over: a start by B with a later epoch than A's lease, while A is still cut off.
    await waitFor(
      async () => {
        const records = await Promise.all(aJobs.map((id) => client!.hgetall(recordKey(id))));
        const taken = records.every((r, i) => {
          const epochs = Object.values(liveLeases(r)).map((v) => Number(v.split(':')[0]));
          return r.status === 'processing' && bIds.has(r.updatedBy ?? '') && epochs.some((e) => e > aEpochs.get(aJobs[i]!)!);
        });
        return taken ? true : undefined;
      },
      { what: 'group B to take A\'s jobs over', timeoutMs: 90_000 },
    );
    const takenOverAfterCutMs = Date.now() - cutAt;
    expect(await sandbox!.canConnect('a', links.a.hostAddress, redis!.port)).toBe(false);

    // A comes back while B works on the jobs (B spins SLOW_MS first): every write A then makes —
    // its heartbeat, the release of its lease, the stage's next write — is refused by the fence.
    await sandbox!.restore('a');
    const restoredAt = Date.now();
    // A link set up again carries traffic once the kernel has its carrier and route back: moments.
    await waitFor(async () => ((await sandbox!.canConnect('a', links.a.hostAddress, redis!.port)) ? true : undefined), { what: 'A to reach Redis again', timeoutMs: 15_000 });
    const refusedFor = (jobId: string) => (l: LogLine) => l.jobId === jobId && l.stage === 'extract' && (l.status === 'fenced' || l.reason === 'fenced');
    await waitFor(async () => (aJobs.every((id) => logsOf('a').some(refusedFor(id))) ? true : undefined), { what: 'A\'s late writes to be refused', timeoutMs: 120_000 });
    const refusedAfterRestoreMs = Date.now() - restoredAt;

    const histories: StatusBody[][] = await finished;
    const seen = await samples;
    const doneAfterCutMs = Date.now() - cutAt;
    for (const [i, jobId] of jobIds.entries()) {
      const history = histories[i]!;
      expect(history.at(-1)).toMatchObject({ status: 'done' });
      for (let k = 1; k < history.length; k += 1) expect(history[k]!.progress.done).toBeGreaterThanOrEqual(history[k - 1]!.progress.done);
      // Never failed, never replayed.
      const record = await client!.hgetall(recordKey(jobId));
      expect(record.series).toBe('1');
      expect(record.history).toBeUndefined();
      expect(staleWriters.has(record.updatedBy ?? '')).toBe(false);
      const manifest = (await (await fetch(`${api!.url}/api/files/job/${jobId}/package`)).json()) as { text: string };
      assertValidPackage(manifest);
      expect(containsSnippet(manifest.text, SNIPPET)).toBe(true);
    }
    for (const jobId of aJobs) {
      // Once B wrote, the consumer that lost the job never wrote it again. (A, once back, is a
      // healthy host: its assemble consumer may take the job's next stage, under a lease of its own.)
      const writers = seen.get(jobId)!;
      const firstB = writers.findIndex((w) => bIds.has(w));
      expect(firstB).toBeGreaterThanOrEqual(0);
      expect(writers.slice(firstB).filter((w) => staleWriters.has(w))).toEqual([]);
    }

    // Whatever A still had in hand ends when its consumers stop (a graceful stop waits for running
    // jobs): from the moment every job was done until then, nothing moved.
    const before = await snapshot(jobIds);
    await Promise.all(consumers.filter((c) => c.group === 'a').map((c) => c.process.stop('SIGTERM', 60_000)));
    expect(await snapshot(jobIds)).toEqual(before);
    for (const jobId of jobIds) expect(await (await fetch(`${api!.url}/api/files/job/${jobId}`)).json()).toMatchObject({ status: 'done' });
    if (process.env.TEST_LOGS === '1') process.stdout.write(`${JSON.stringify({ aJobs: aJobs.length, takenOverAfterCutMs, refusedAfterRestoreMs, doneAfterCutMs })}\n`);
  }, 480_000);
});
