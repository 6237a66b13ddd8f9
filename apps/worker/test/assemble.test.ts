import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Queue, type Job, type Worker } from 'bullmq';
import { JobStateStore } from '@readpack/job-state';
import { createLogger } from '@readpack/logging';
import { openStorage, type Storage } from '@readpack/package-store';
import { bullPrefix, QueueProducer, type AssemblePayload } from '@readpack/queues';
import { parseDocument } from '@readpack/parsers';
import { walkBlocks, type PackageManifest } from '@readpack/reading-package';
import { assertValidPackage, connectTestRedis, corpusManifest, deleteKeysWithPrefix, fixturePath, testRedisUrl } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { testConfig } from '../../../test/harness.js';
import type { Extraction } from '../src/extraction.js';
import { assembleStage, fromExtraction } from '../src/stages/assemble.js';
import type { StageContext } from '../src/stage.js';

let redis: RedisClient;
let storage: Storage;
let ctx: StageContext;
let store: JobStateStore;
let prefix: string;
const lease = { series: 1, holder: 'assemble:job_assembletwice000000-assemble', epoch: 1, token: 'tok' };

beforeAll(async () => {
  const config = await testConfig();
  prefix = config.redis.prefix;
  redis = connectTestRedis();
  storage = await openStorage(resolve(config.dataDir));
  const logger = createLogger({ component: 'test' });
  logger.silent = true;
  store = new JobStateStore(redis, { prefix, ttl: { queuedSeconds: 60, processingSeconds: 60, resultSeconds: 60 }, leaseMs: 1_000, actor: 'test:1' });
  ctx = {
    config,
    logger,
    job: undefined as unknown as Job, // set per test to a real BullMQ job
    worker: undefined as unknown as Worker, // assemble never rate-limits
    storage,
    state: store.leased(lease),
    producer: new QueueProducer(redis, prefix, { onError: () => undefined }),
    converterAvailable: () => Promise.resolve(false),
    assemblesHere: false,
  };
});
afterAll(async () => {
  await ctx.producer.close();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

describe('assemble', () => {
  it('run twice for the same job leaves one byte-identical package and one terminal transition', async () => {
    const parsed = await parseDocument({ path: fixturePath('word_sample.docx'), mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    const images = [];
    for (const image of parsed.images) images.push({ name: image.name, mediaType: image.mediaType, ...(await storage.blobs.putBuffer(image.data)) });
    const extraction: Extraction = { ...parsed, images };
    const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
    const jobId = 'job_assembletwice000000';
    const source = { sha256: 'a'.repeat(64), filename: 'word_sample.docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 1 };
    await store.createJob({ jobId, tenant: 'default', source });
    await store.start({ jobId }, 'assemble', lease);
    const payload = { jobId, tenant: 'default', source, options: { engine: 'local' as const, ocrLang: 'eng' }, extraction: { sha256: stored.sha256 } };
    const queue = new Queue('assemble', { connection: redis, prefix: bullPrefix(prefix) });
    ctx.job = await queue.add('assemble', payload, { jobId: `${jobId}-assemble` });
    await queue.close();

    await assembleStage.handle(payload, ctx);
    const first = await readFile(storage.packages.pathOf(jobId));
    const recordAfterFirst = await ctx.state.getJob(jobId);
    await assembleStage.handle(payload, ctx);
    const second = await readFile(storage.packages.pathOf(jobId));
    const recordAfterSecond = await ctx.state.getJob(jobId);

    expect(second.equals(first)).toBe(true);
    expect(recordAfterFirst?.status).toBe('done');
    expect(recordAfterSecond).toEqual(recordAfterFirst); // the second completion was ignored
    const manifest = JSON.parse(first.toString('utf8')) as PackageManifest;
    assertValidPackage(manifest);
    expect(manifest.assets.length).toBeGreaterThan(0);
    const shown = new Set([...walkBlocks(manifest.body)].flatMap((b) => (b.type === 'figure' && b.asset ? [b.asset] : [])));
    for (const asset of manifest.assets) expect([asset.sha256, asset.role]).toEqual([asset.sha256, shown.has(asset.sha256) ? 'figure' : 'embedded-image']);
    // word_sample.docx's one picture is a figure block of the body: its asset has the figure role.
    expect(manifest.assets.every((a) => a.role === 'figure')).toBe(true);
    expect(manifest.text).toContain('Summer activities');
    expect(recordAfterFirst?.result?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('a flow without children', () => {
  /** The BullMQ keys holding the children's values and failures of `bullJobId`, as assemble's commands name them. */
  async function childReads(payload: AssemblePayload, bullJobId: string): Promise<string[]> {
    const queue = new Queue('assemble', { connection: redis, prefix: bullPrefix(prefix) });
    ctx.job = await queue.add('assemble', payload, { jobId: bullJobId });
    await queue.close();
    const keyStart = `${bullPrefix(prefix)}:assemble:${bullJobId}:`;
    const monitor = await startMonitor();
    try {
      await store.createJob({ jobId: payload.jobId, tenant: 'default', source: payload.source });
      await store.start({ jobId: payload.jobId }, 'assemble', { ...lease, holder: `assemble:${bullJobId}` });
      await assembleStage.handle(payload, { ...ctx, state: store.leased({ ...lease, holder: `assemble:${bullJobId}` }) });
      expect((await store.getJob(payload.jobId))?.status).toBe('done');
      const commands = await monitor.until(`end-of-${bullJobId}`);
      return commands.flatMap((args) => {
        const key = args.find((a) => a.startsWith(keyStart));
        return key ? [`${args[0]} ${key.slice(key.lastIndexOf(':') + 1)}`] : [];
      });
    } finally {
      monitor.stop();
    }
  }

  /**
   * MONITOR of the standalone test Redis (a single server's command) through redis-cli: ioredis'
   * monitor mode fails ("Command queue state error") when a monitored line arrives in the same read
   * as MONITOR's OK, which other suites' traffic on the shared server makes possible. `until(mark)`
   * sends ECHO mark and returns every command seen before it, each as its arguments.
   */
  async function startMonitor(): Promise<{ until(mark: string): Promise<string[][]>; stop(): void }> {
    const cli = spawn('redis-cli', ['-u', testRedisUrl(), 'monitor'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let pending = '';
    const waiters: (() => void)[] = [];
    cli.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      lines.push(...complete);
      for (const wake of waiters.splice(0)) wake();
    });
    const seen = async (test: (line: string) => boolean): Promise<number> => {
      for (;;) {
        const at = lines.findIndex(test);
        if (at >= 0) return at;
        if (cli.exitCode !== null) throw new Error(`redis-cli monitor exited with ${cli.exitCode}`);
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };
    await seen((line) => line.trim() === 'OK');
    return {
      async until(mark) {
        await redis.echo(mark);
        const end = await seen((line) => line.includes(`"echo" "${mark}"`));
        // A monitored line: `<time> [<db> <client>] "<command>" "<arg>"…`, each argument quoted.
        return lines.slice(0, end).map((line) => [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!));
      },
      stop: () => void cli.kill(),
    };
  }

  it('says so in its payload, and assemble does not ask Redis for children it has not got', async () => {
    const parsed = await parseDocument({ path: fixturePath('footnotes.docx'), mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    const extraction: Extraction = { ...parsed, images: [] };
    const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
    const source = { sha256: 'c'.repeat(64), filename: 'footnotes.docx', mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', size: 1 };
    const base = { tenant: 'default', source, options: { engine: 'local' as const, ocrLang: 'eng' }, extraction: { sha256: stored.sha256 } };
    // A payload without the count (added before it existed) is read the long way: the check sees the reads.
    const unknown = await childReads({ ...base, jobId: 'job_childrenunknown000000' }, 'job_childrenunknown000000-assemble');
    expect(unknown.some((r) => r.endsWith(' processed'))).toBe(true);
    expect(await childReads({ ...base, jobId: 'job_nochildren0000000000', children: 0 }, 'job_nochildren0000000000-assemble')).toEqual([]);
  });
});

describe('every corpus document', () => {
  const parsedLocally = corpusManifest().filter((f) => f.has_text_layer === true && !/encrypt/i.test(f.kind) && f.snippets.length > 0);

  it.each(parsedLocally.map((f) => [f.name, f] as const))('%s assembles into a package that validates against the published schema', async (name, entry) => {
    const parsed = await parseDocument({ path: fixturePath(name), mediaType: entry.media_type });
    const extraction: Extraction = { ...parsed, images: parsed.images.map(({ data, ...image }) => ({ ...image, size: data.byteLength })) };
    const source = { sha256: 'b'.repeat(64), filename: name, mediaType: entry.media_type, size: 1 };
    const manifest = fromExtraction({ jobId: 'job_schemacheck000000000', tenant: 'default', source, options: { engine: 'local', ocrLang: 'eng' } }, extraction);
    assertValidPackage(manifest);
    expect(manifest.markdown.length).toBeGreaterThan(0);
  }, 120_000);
});
