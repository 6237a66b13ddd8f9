import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES } from '@readpack/config';
import { connectTestRedis, containsSnippet, corpusManifest, deleteKeysWithPrefix, testRedisUrl, uniqueName } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { freshRequest, waitForHealthy } from '../support/fresh-http.js';
import { failedPolls, pollFresh, type Poll } from '../support/fresh-polling.js';
import { Pm2, type Pm2Process } from '../support/pm2.js';
import { killPids, processesWithEnv } from '../support/procfs.js';
import { serviceEnv } from '../support/env.js';
import { builtScript } from '../support/service-process.js';
import { uploadBatch, uploadFixture } from '../support/uploads.js';

/**
 * The seed incident, reversed. Production ran 8 PM2 cluster workers and kept job state in a
 * per-process Map, so a poll that reached another worker than the upload answered 404 at random.
 * Here the real pm2 runs the real ecosystem file with 8 API instances, and every poll opens a new
 * connection, so the cluster spreads the polls over the workers: each must answer 200.
 */

const API_INSTANCES = 8;
/** Enough fresh connections that 8 round-robin workers all get their turn several times. */
const MIN_POLLS = 40;
const FIXTURES = ['word_sample.docx', 'pdflatex-image.pdf'];

interface JobBody {
  jobId: string;
  status: string;
}
interface BatchBody {
  status: string;
  total: number;
  completed: number;
  failed: number;
  files: { name: string; jobId: string }[];
}

let pm2: Pm2 | undefined;
let dataDir: string | undefined;
const prefix = uniqueName('pm2');
let base: string;
/** What pm2 reported once the API answered; the pids every answer must come from. */
let started: Pm2Process[] = [];
let apiPids: number[] = [];

beforeAll(async () => {
  builtScript('apps/api/dist/main.js');
  builtScript('apps/worker/dist/main.js');
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-pm2-data-'));
  pm2 = await Pm2.create();
  const port = await findFreePort();
  base = `http://127.0.0.1:${port}`;
  const env = serviceEnv({
    API_INSTANCES: String(API_INSTANCES),
    ...Object.fromEntries(STAGES.map((stage) => [`${stage.toUpperCase()}_CONSUMERS`, '1'])),
    PORT: String(port),
    HOST: '127.0.0.1',
    REDIS_URL: testRedisUrl(),
    READPACK_PREFIX: prefix,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The ecosystem file sets pm2's kill_timeout from it: an app that hangs on SIGINT costs
    // afterAll 10 s instead of 35.
    SHUTDOWN_GRACE_MS: '5000',
  });
  await pm2.run(['start', 'ecosystem.config.cjs'], env);
  const p = pm2;
  await waitForHealthy(base, { timeoutMs: 90_000, describe: () => p.logs() });
  started = await pm2.list();
  apiPids = started.filter((s) => s.name === 'readpack-api').map((s) => s.pid);
}, 150_000);

afterAll(async () => {
  await pm2?.kill();
  // Should pm2's daemon have died first, its apps would outlive it: they all carry the prefix.
  killPids(processesWithEnv('READPACK_PREFIX', prefix));
  const redis = connectTestRedis();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** pm2's own log and the apps' logs: shown with a failure, since the processes are gone by then. */
async function pm2Logs(): Promise<string> {
  return `${(await pm2!.daemonLog()).slice(-3_000)}\n${await pm2!.logs()}`;
}

async function expectSpreadOverApiWorkers(polls: Poll[]): Promise<void> {
  expect(polls.length).toBeGreaterThanOrEqual(MIN_POLLS);
  const pids = new Set(polls.map((p) => p.pid));
  // Every answer is a 200 from one of pm2's API workers, none from a process restarted meanwhile.
  const problems = { failed: failedPolls(polls), fromUnknownPids: [...pids].filter((pid) => !apiPids.includes(pid)) };
  const logs = problems.failed.length + problems.fromUnknownPids.length > 0 ? await pm2Logs() : '';
  expect({ ...problems, logs }).toEqual({ failed: [], fromUnknownPids: [], logs: '' });
  expect(pids.size).toBeGreaterThanOrEqual(2);
}

async function expectPackageWithSnippets(jobId: string, fixture: string): Promise<void> {
  const res = await freshRequest(`${base}/api/files/job/${jobId}/package`);
  expect(res.status).toBe(200);
  const entry = corpusManifest().find((f) => f.name === fixture);
  expect(entry?.snippets.length).toBeGreaterThan(0);
  const { text } = res.json<{ text: string }>();
  for (const snippet of entry!.snippets) expect({ snippet: snippet.text, found: containsSnippet(text, snippet.text) }).toEqual({ snippet: snippet.text, found: true });
}

describe(`pm2 cluster mode, ${API_INSTANCES} API workers`, () => {
  it('runs the ecosystem file: the API in cluster mode, one fork-mode consumer per stage', () => {
    const api = started.filter((p) => p.name === 'readpack-api');
    expect(api).toHaveLength(API_INSTANCES);
    expect(api.every((p) => p.execMode === 'cluster_mode' && p.status === 'online')).toBe(true);
    for (const name of ['readpack-extract', 'readpack-assemble']) {
      expect(started.filter((p) => p.name === name).map((p) => [p.execMode, p.status])).toEqual([['fork_mode', 'online']]);
    }
    expect(new Set(apiPids).size).toBe(API_INSTANCES);
  });

  it.each(FIXTURES)('%s: every poll on a new connection answers 200, from several workers, until done', async (fixture) => {
    const { jobId } = await uploadFixture(base, fixture);
    const { polls, last } = await pollFresh<JobBody>(`${base}/api/files/job/${jobId}`, {
      until: (body) => body.status === 'done' || body.status === 'failed',
      minPolls: MIN_POLLS,
      timeoutMs: 90_000,
    });
    await expectSpreadOverApiWorkers(polls);
    expect(last).toMatchObject({ jobId, status: 'done' });
    await expectPackageWithSnippets(jobId, fixture);
  }, 120_000);

  it('a 2-file batch: every poll answers 200 until completed 2 of 2', async () => {
    const { batchId } = await uploadBatch(base, FIXTURES);
    const { polls, last } = await pollFresh<BatchBody>(`${base}/api/files/batch/${batchId}`, {
      until: (body) => body.completed + body.failed === body.total,
      minPolls: MIN_POLLS,
      timeoutMs: 90_000,
    });
    await expectSpreadOverApiWorkers(polls);
    expect(last).toMatchObject({ status: 'done', total: 2, completed: 2, failed: 0 });
    for (const file of last!.files) await expectPackageWithSnippets(file.jobId, file.name);
  }, 120_000);

  it('no pm2 process restarted while serving', async () => {
    const now = await pm2!.list();
    const restarted = now.filter((p) => p.restarts > 0 || p.status !== 'online').map((p) => `${p.name} ${p.pid} ${p.status} ↺${p.restarts}`);
    expect({ restarted, logs: restarted.length > 0 ? await pm2Logs() : '' }).toEqual({ restarted: [], logs: '' });
  }, 30_000);

  // Last: it stops everything. pm2 stops apps with SIGINT and SIGKILLs them after kill_timeout;
  // every app must drain and exit 0 on that SIGINT by itself.
  it('pm2 stop: every app exits with code 0 on the SIGINT pm2 sends', async () => {
    await pm2!.run(['stop', 'all']);
    const log = await pm2!.daemonLog();
    const unclean = started.filter((p) => !log.includes(`App [${p.name}:${p.id}] exited with code [0] via signal [SIGINT]`));
    expect({ unclean: unclean.map((p) => `${p.name}:${p.id}`), log: unclean.length > 0 ? log.slice(-3_000) : '' }).toEqual({ unclean: [], log: '' });
  }, 60_000);
});
