import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CONFIG_ERROR } from '@readpack/config';
import { uniqueName, waitFor } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { pollUntilTerminal } from '../harness.js';
import { serviceEnv } from '../support/env.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { descendantsOf, isRunning, killPids, processesWithCwdUnder, processesWithEnv, type ProcessInfo } from '../support/procfs.js';
import { builtScript, startProcess, type ServiceProcess } from '../support/service-process.js';
import { uploadFixture } from '../support/uploads.js';

/**
 * `npm start` with its defaults, the small-install layout: one plain API process (no node:cluster
 * primary), the light stages in one `shared` consumer process, OCR in `ocr-1`, no mineru without
 * MINERU_URL. A scanned image goes extract → OCR → assemble across the two consumer processes.
 * Supervisor tests proper (restarts, Ctrl-C) are in supervisor.test.ts.
 */

const prefix = uniqueName('supfp');
let dataDir: string | undefined;
let supervisor: ServiceProcess | undefined;
let base: string;
const WORKER = 'apps/worker/dist/main.js';

function tree(): { redis: ProcessInfo[]; api: ProcessInfo[]; cluster: ProcessInfo[]; workers: ProcessInfo[] } {
  const all = descendantsOf(supervisor!.pid);
  const runs = (script: string) => (p: ProcessInfo) => p.args.some((a) => a.endsWith(script));
  return {
    redis: all.filter((p) => p.args[0]?.includes('redis-server')),
    api: all.filter(runs('apps/api/dist/main.js')),
    cluster: all.filter(runs('apps/api/dist/cluster.js')),
    workers: all.filter(runs(WORKER)),
  };
}

/** What a worker process consumes: its arguments after the script. */
const rolesOf = (p: ProcessInfo) => p.args.slice(p.args.findIndex((a) => a.endsWith(WORKER)) + 1);

function leftovers(): number[] {
  return [...new Set([...processesWithEnv('READPACK_PREFIX', prefix), ...(dataDir ? processesWithCwdUnder(dataDir) : [])])];
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'readpack-supervisor-footprint-'));
  const port = await findFreePort();
  base = `http://127.0.0.1:${port}`;
  supervisor = await startProcess(process.execPath, [builtScript('apps/supervisor/dist/main.js')], {
    env: serviceEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, READPACK_PREFIX: prefix, LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '5000' }),
  });
  const s = supervisor;
  await waitForHealthy(base, { timeoutMs: 90_000, describe: () => s.outputTail() });
  await waitFor(async () => (tree().workers.length === 2 ? true : undefined), { timeoutMs: 60_000, intervalMs: 200, what: 'two consumer processes' });
}, 150_000);

afterAll(async () => {
  await supervisor?.stop('SIGINT', 45_000);
  killPids(leftovers());
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 90_000);

describe('npm start, default layout', () => {
  it('runs Redis, one API process without a cluster primary, a shared consumer and an OCR consumer, nothing else', () => {
    const t = tree();
    expect(t.redis).toHaveLength(1);
    expect(t.cluster).toEqual([]);
    expect(t.api).toHaveLength(1);
    expect(t.api[0]!.ppid).toBe(supervisor!.pid);
    expect(t.workers.map(rolesOf).sort()).toEqual([['extract', 'convert', 'render', 'assemble', 'webhook'], ['ocr']]);
    // Direct children only: a consumer may briefly run children of its own (soffice --version).
    expect(descendantsOf(supervisor!.pid).filter((p) => p.ppid === supervisor!.pid)).toHaveLength(4);
  });

  it('a scanned image reaches done through the shared process and the OCR process', async () => {
    const { jobId } = await uploadFixture(base, 'testocr.png');
    const events = await pollUntilTerminal(base, jobId, 90_000);
    expect(events.at(-1)).toMatchObject({ jobId, status: 'done' });
    const markdown = await (await fetch(`${base}/api/files/job/${jobId}/markdown`)).text();
    // testocr.png is tesseract's own sample: its text came out of the OCR consumer.
    expect(markdown).toMatch(/quick brown/i);
  }, 120_000);

  it('SIGKILL of the supervisor: the API process and the consumers stop by themselves (their IPC channel closed)', async () => {
    const { api, workers } = tree();
    const children = [...api, ...workers].map((p) => p.pid);
    process.kill(supervisor!.pid, 'SIGKILL');
    await waitFor(async () => (children.every((pid) => !isRunning(pid)) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200, what: 'the API and consumers to stop' });
    supervisor = undefined;
  }, 60_000);
});

describe('refused configurations', () => {
  it('a worker asked for an unknown stage exits with EXIT_CONFIG_ERROR, naming the variable', () => {
    const run = spawnSync(process.execPath, [builtScript(WORKER)], { env: serviceEnv({ READPACK_STAGES: 'extract,pdf', READPACK_PREFIX: prefix }), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(EXIT_CONFIG_ERROR);
    expect(run.stderr).toContain('READPACK_STAGES');
  });

  it('MINERU_CONSUMERS without MINERU_URL: npm start stops with EXIT_CONFIG_ERROR before starting anything', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'readpack-supervisor-mineru-'));
    try {
      const run = spawnSync(process.execPath, [builtScript('apps/supervisor/dist/main.js')], {
        env: serviceEnv({ MINERU_CONSUMERS: '1', DATA_DIR: dir, READPACK_PREFIX: prefix, PORT: '0' }),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).toBe(EXIT_CONFIG_ERROR);
      expect(run.stderr).toContain('MINERU_CONSUMERS');
      expect(existsSync(join(dir, 'redis'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
