import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, STAGES, type Config, type Stage } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { secretKeyPath } from '@readpack/secrets';
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl, uniqueName } from '@readpack/testing';
import { startApi, type RunningApi } from '../apps/api/src/server.js';
import { startConsumer, type RunningConsumer } from '../apps/worker/src/runner.js';
import { startLoopbackS3, type LoopbackS3 } from './support/s3rver.js';

/**
 * A whole Readpack in the test process: API on a free port, one consumer per stage, its own Redis
 * prefix and data directory. `stop()` closes everything and deletes its keys and files.
 */
export interface Pipeline {
  /** The API's configuration (with STORAGE=s3 every consumer has its own DATA_DIR; see `consumerConfigs`). */
  config: Config;
  api: RunningApi;
  consumers: RunningConsumer[];
  consumerConfigs: Config[];
  /** The loopback S3 server, when the pipeline runs with STORAGE=s3. */
  s3: LoopbackS3 | undefined;
  stop(): Promise<void>;
}

/**
 * STORAGE=s3 in the overrides, or READPACK_TEST_STORAGE=s3 in the environment (to run any
 * pipeline suite against object storage): an s3rver on loopback holds uploads, blobs and packages,
 * and every process gets its own DATA_DIR, so nothing can pass through a shared disk.
 */
function wantsS3(overrides: Record<string, string>): boolean {
  return (overrides.STORAGE ?? process.env.READPACK_TEST_STORAGE) === 's3';
}

export async function testConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const dataDir = await mkdtemp(join(tmpdir(), 'readpack-test-'));
  return loadConfig({
    REDIS_URL: testRedisUrl(),
    READPACK_PREFIX: uniqueName('rp'),
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'error',
    ...overrides,
  });
}

/** `stages`: the consumers to start (default: every stage; leave out `convert` for a deployment without LibreOffice). */
export async function startPipeline(overrides: Record<string, string> = {}, options: { consumers?: boolean; stages?: readonly Stage[] } = {}): Promise<Pipeline> {
  const s3 = wantsS3(overrides) ? await startLoopbackS3() : undefined;
  const config = await testConfig({ ...s3?.env, ...overrides });
  const logger = createLogger({ level: config.logLevel, component: 'test' });
  // Failures are expected in many tests; assertions, not log lines, tell the story.
  logger.silent = process.env.TEST_LOGS !== '1';
  const api = await startApi(config, logger);
  const stages = options.consumers === false ? [] : (options.stages ?? STAGES);
  const consumerConfigs = s3 ? await Promise.all(stages.map(() => ownDataDir(config, { ...s3.env, ...overrides }))) : stages.map(() => config);
  const consumers = await Promise.all(stages.map((stage, i) => startConsumer(stage, consumerConfigs[i]!, logger)));
  return {
    config,
    api,
    consumers,
    consumerConfigs,
    s3,
    async stop() {
      await Promise.all(consumers.map((c) => c.close(2_000)));
      await api.close();
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, config.redis.prefix);
      await redis.quit();
      for (const dir of new Set([config.dataDir, ...consumerConfigs.map((c) => c.dataDir)])) await rm(dir, { recursive: true, force: true });
      await s3?.stop();
    },
  };
}

/**
 * The configuration of a consumer with its own DATA_DIR, same deployment otherwise. The secret key
 * is the one thing copied: it is a deployment secret (a mounted file in production), not storage.
 */
async function ownDataDir(api: Config, overrides: Record<string, string>): Promise<Config> {
  const config = await testConfig({ ...overrides, READPACK_PREFIX: api.redis.prefix });
  await copyFile(secretKeyPath(api.dataDir), secretKeyPath(config.dataDir));
  return config;
}

export async function upload(baseUrl: string, files: { name: string; data: Uint8Array; field?: string }[], path = '/api/files'): Promise<Response> {
  const form = new FormData();
  for (const f of files) form.append(f.field ?? 'file', new Blob([f.data]), f.name);
  return fetch(`${baseUrl}${path}`, { method: 'POST', body: form });
}

export interface StatusBody {
  jobId: string;
  status: string;
  phase: string;
  progress: { done: number; total: number };
  error?: { code: string; message: string };
  result?: { packageId: string; size: number; sha256: string };
}

/** Polls a job until it is terminal; returns every status body seen. */
export async function pollUntilTerminal(baseUrl: string, jobId: string, timeoutMs = 30_000): Promise<StatusBody[]> {
  const seen: StatusBody[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${baseUrl}/api/files/job/${jobId}`);
    if (res.status !== 200) throw new Error(`status ${res.status} for ${jobId}: ${await res.text()}`);
    const body = (await res.json()) as StatusBody;
    seen.push(body);
    if (body.status === 'done' || body.status === 'failed') return seen;
    if (Date.now() > deadline) throw new Error(`job ${jobId} not terminal after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
