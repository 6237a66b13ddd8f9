import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES, type Stage } from '@readpack/config';
import { connectTestRedis, deleteKeysWithPrefix, uniqueName, waitFor } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { pollUntilTerminal } from '../harness.js';
import { serviceEnv } from '../support/env.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { descendantsOf, isRunning, killPids, processesWithCwdUnder, processesWithEnv, type ProcessInfo } from '../support/procfs.js';
import { builtScript, jsonLines, startProcess, type ServiceProcess } from '../support/service-process.js';
import { uploadFixture } from '../support/uploads.js';

/**
 * `npm start` (apps/supervisor/dist/main.js) as a user runs it: no REDIS_URL, so it must bring its
 * own Redis under DATA_DIR/redis; it keeps its children alive; Ctrl-C leaves nothing behind. Its
 * default layout runs the light stages in one shared consumer process, so the documents here go
 * through a process that consumes several stages.
 */

const prefix = uniqueName('sup');
let dataDir: string | undefined;
let supervisor: ServiceProcess | undefined;
let base: string;
/** Every pid the supervisor's tree ever had, to prove at the end that none is left. */
const seenPids = new Set<number>();

interface Tree {
  redis: ProcessInfo[];
  apiPrimary: ProcessInfo[];
  apiWorkers: ProcessInfo[];
  /** The consumer processes that consume each stage (one process may consume several). */
  consumers: Record<Stage, ProcessInfo[]>;
  /** Webhook delivery (its own queue, not a stage). */
  webhook: ProcessInfo[];
  /** Every consumer process, whatever it consumes. */
  workers: ProcessInfo[];
}

/** The supervisor's descendants by role, read from their command lines. */
function tree(): Tree {
  const all = descendantsOf(supervisor!.pid);
  for (const p of all) seenPids.add(p.pid);
  const runs = (script: string) => (p: ProcessInfo) => p.args.some((a) => a.endsWith(script));
  const consumer = (stage: string) => (p: ProcessInfo) => runs('apps/worker/dist/main.js')(p) && p.args.includes(stage);
  return {
    redis: all.filter((p) => p.args[0]?.includes('redis-server')),
    apiPrimary: all.filter(runs('apps/api/dist/cluster.js')),
    apiWorkers: all.filter(runs('apps/api/dist/main.js')),
    consumers: Object.fromEntries(STAGES.map((stage) => [stage, all.filter(consumer(stage))])) as Record<Stage, ProcessInfo[]>,
    webhook: all.filter(consumer('webhook')),
    workers: all.filter(runs('apps/worker/dist/main.js')),
  };
}

function roleCounts(t: Tree): Record<string, number> {
  const consumers = Object.fromEntries(STAGES.map((stage) => [stage, t.consumers[stage].length]));
  return { redis: t.redis.length, apiPrimary: t.apiPrimary.length, apiWorkers: t.apiWorkers.length, ...consumers, webhook: t.webhook.length, workerProcesses: t.workers.length };
}

/**
 * One private Redis, the cluster primary with API_INSTANCES=2 workers, and two consumer processes:
 * `shared` (extract, convert, render, assemble, webhook: LibreOffice is installed here) and `ocr-1`.
 * No mineru consumer: MINERU_URL is unset.
 */
const SHARED_ROLES = ['extract', 'convert', 'render', 'assemble', 'webhook'];
const EXPECTED: Record<string, number> = { redis: 1, apiPrimary: 1, apiWorkers: 2, ...Object.fromEntries(STAGES.map((stage) => [stage, stage === 'mineru' ? 0 : 1])), webhook: 1, workerProcesses: 2 };
/** Distinct processes: a shared consumer counts once however many stages it consumes. */
const EXPECTED_PROCESSES = EXPECTED.redis! + EXPECTED.apiPrimary! + EXPECTED.apiWorkers! + EXPECTED.workerProcesses!;

/** What this test started and still runs: by its prefix in the environment, or (redis-server, which overwrites its environment) by its directory. */
function leftovers(): number[] {
  return [...new Set([...processesWithEnv('READPACK_PREFIX', prefix), ...(dataDir ? processesWithCwdUnder(dataDir) : [])])];
}

async function uploadAndComplete(fixture: string): Promise<void> {
  const { jobId } = await uploadFixture(base, fixture);
  expect((await pollUntilTerminal(base, jobId, 60_000)).at(-1)).toMatchObject({ jobId, status: 'done' });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-supervisor-data-'));
  const port = await findFreePort();
  base = `http://127.0.0.1:${port}`;
  supervisor = await startProcess(process.execPath, [builtScript('apps/supervisor/dist/main.js')], {
    // serviceEnv drops the suite's REDIS_URL: the supervisor has to start a Redis of its own.
    env: serviceEnv({ PORT: String(port), HOST: '127.0.0.1', API_INSTANCES: '2', DATA_DIR: dataDir, READPACK_PREFIX: prefix, LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '10000' }),
  });
  const s = supervisor;
  await waitForHealthy(base, { timeoutMs: 90_000, describe: () => s.outputTail() });
  // /healthz answers as soon as one API worker listens; the rest of the tree may still be starting.
  await waitFor(async () => (JSON.stringify(roleCounts(tree())) === JSON.stringify(EXPECTED) ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: `the supervised processes ${JSON.stringify(EXPECTED)}`,
  });
}, 150_000);

afterAll(async () => {
  // An orderly stop first (it is what the last test checks); then nothing may survive this test,
  // wherever it was re-parented: every process it started carries its unique prefix.
  await supervisor?.stop('SIGINT', 45_000);
  killPids(leftovers());
  // Nothing should have reached the suite's Redis; clean up in case something did.
  const shared = connectTestRedis();
  await deleteKeysWithPrefix(shared, prefix);
  await shared.quit();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 90_000);

describe('npm start (apps/supervisor)', () => {
  it('runs a private redis-server under DATA_DIR/redis, the API cluster, the light stages in one process, OCR alone, no mineru', () => {
    const t = tree();
    expect(roleCounts(t)).toEqual(EXPECTED);
    const [shared] = t.consumers.extract;
    expect(shared!.args.slice(shared!.args.findIndex((a) => a.endsWith('apps/worker/dist/main.js')) + 1)).toEqual(SHARED_ROLES);
    expect(t.consumers.ocr[0]!.pid).not.toBe(shared!.pid);
    expect(readlinkSync(`/proc/${t.redis[0]!.pid}/cwd`)).toBe(join(dataDir!, 'redis'));
    // The API workers are the cluster primary's children.
    expect(t.apiWorkers.every((w) => w.ppid === t.apiPrimary[0]!.pid)).toBe(true);
  });

  it('a DOCX reaches done, with its state in the private Redis, not the suite\'s', async () => {
    await uploadAndComplete('word_sample.docx');
    expect(existsSync(join(dataDir!, 'redis', 'appendonlydir'))).toBe(true);
    const shared = connectTestRedis();
    try {
      expect(await shared.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000).then(([, keys]) => keys)).toEqual([]);
    } finally {
      await shared.quit();
    }
  }, 90_000);

  it('a SIGKILLed shared consumer is replaced, and the next document still completes', async () => {
    const [victim] = tree().consumers.extract;
    expect(victim).toBeDefined();
    process.kill(victim!.pid, 'SIGKILL');
    const replacement = await waitFor(
      async () => {
        const [extract] = tree().consumers.extract;
        return extract && extract.pid !== victim!.pid ? extract : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'a new extract consumer' },
    );
    expect(isRunning(victim!.pid)).toBe(false);
    expect(isRunning(replacement.pid)).toBe(true);
    // The supervisor noticed the crash (a warning, so it shows at LOG_LEVEL=warn).
    const crash = jsonLines(supervisor!.stdoutLines()).find((l) => l.message === 'process exited unexpectedly; restarting' && l.childPid === victim!.pid);
    expect(crash).toMatchObject({ process: 'shared', signal: 'SIGKILL' });
    await uploadAndComplete('pdflatex-image.pdf');
    expect(roleCounts(tree())).toEqual(EXPECTED);
  }, 120_000);

  it('SIGINT: exits 0 and leaves no process running (API workers, consumers, redis-server)', async () => {
    tree();
    expect(seenPids.size).toBeGreaterThanOrEqual(EXPECTED_PROCESSES + 1); // + the replacement consumer
    const exit = await supervisor!.stop('SIGINT', 45_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect([...seenPids].filter(isRunning)).toEqual([]);
    expect(leftovers()).toEqual([]);
  }, 60_000);
});
