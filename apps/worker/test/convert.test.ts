import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Queue, type Job, type Worker } from 'bullmq';
import { JobStateStore } from '@readpack/job-state';
import { createLogger } from '@readpack/logging';
import { openStorage, type Storage } from '@readpack/package-store';
import { bullPrefix, QueueProducer, stageJobId, RENDITION_PART, type ConvertPayload, type ExtractPayload } from '@readpack/queues';
import { buildZip, connectTestRedis, deleteKeysWithPrefix } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { testConfig } from '../../../test/harness.js';
import { flatOdt, sofficeConvert } from '../../../packages/parsers/test/libreoffice.js';
import { ConversionError, LibreOffice, reapOrphans } from '../src/libreoffice.js';
import { convertStage } from '../src/stages/convert.js';
import { extractStage } from '../src/stages/extract.js';
import type { ParsePool } from '../src/parse-pool.js';
import type { StageContext } from '../src/stage.js';
import { openSecretBox, type SecretBox } from '@readpack/secrets';

let redis: RedisClient;
let storage: Storage;
/** The services every stage gets; the converter is set once a test has opened LibreOffice. */
let ctx: StageContext & { libreoffice?: LibreOffice };
const withConverter = (c: typeof ctx, libreoffice = c.libreoffice): StageContext<'libreoffice'> => ({ ...c, libreoffice: libreoffice! });
let prefix: string;
let scratch: string;
let secrets: SecretBox;

beforeAll(async () => {
  const config = await testConfig();
  prefix = config.redis.prefix;
  redis = connectTestRedis();
  storage = await openStorage(resolve(config.dataDir));
  scratch = await mkdtemp(join(tmpdir(), 'readpack-convert-test-'));
  const logger = createLogger({ component: 'test' });
  logger.silent = true;
  ctx = {
    config,
    logger,
    job: undefined as unknown as Job,
    worker: undefined as unknown as Worker,
    storage,
    state: new JobStateStore(redis, { prefix, ttl: { queuedSeconds: 60, processingSeconds: 60, resultSeconds: 60 }, leaseMs: 1_000, actor: 'test:1' }).leased({ series: 1, holder: 'convert:test', epoch: 1, token: 'tok' }),
    producer: new QueueProducer(redis, prefix, { onError: () => undefined }),
    converterAvailable: () => Promise.resolve(true),
    assemblesHere: false,
  };
  secrets = await openSecretBox(resolve(config.dataDir));
});
afterAll(async () => {
  await ctx.producer.close();
  await ctx.libreoffice?.close();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
  await rm(scratch, { recursive: true, force: true });
});

async function convertJob(jobId: string, source: ConvertPayload['source'], extra: Partial<ConvertPayload> = {}): Promise<Job> {
  const payload: ConvertPayload = { jobId, tenant: 'default', source, options: { engine: 'local', ocrLang: 'eng' }, reason: 'format', ...extra };
  const queue = new Queue('convert', { connection: redis, prefix: bullPrefix(prefix) });
  const job = await queue.add('convert', payload, { jobId: stageJobId(jobId, 'convert') });
  await queue.close();
  return job;
}

describe('convert stage', () => {
  it('converts, records the PDF in its job, and a re-delivery re-uses that PDF without LibreOffice', async () => {
    const odt = await sofficeConvert('report.fodt', flatOdt(), 'odt');
    const stored = await storage.blobs.putBuffer(Buffer.from(odt));
    const source = { sha256: stored.sha256, filename: 'report.odt', mediaType: 'application/vnd.oasis.opendocument.text', size: stored.size };
    const jobId = 'job_convertonce00000000';
    ctx.libreoffice = await LibreOffice.open(undefined, 120_000);
    ctx.job = await convertJob(jobId, source);
    await convertStage.handle(ctx.job.data as ConvertPayload, withConverter(ctx));
    const convertQueue = new Queue('convert', { connection: redis, prefix: bullPrefix(prefix) });
    const recorded = await convertQueue.getJob(ctx.job.id!);
    await convertQueue.close();
    const pdf = (recorded?.data as ConvertPayload).pdf!;
    expect(pdf).toMatchObject({ parser: 'libreoffice', version: ctx.libreoffice.version });
    expect(Buffer.from(await storage.blobs.readBuffer(pdf.sha256)).subarray(0, 5).toString()).toBe('%PDF-');

    // The extract job on the PDF, with an id derived from the job id.
    const extract = new Queue('extract', { connection: redis, prefix: bullPrefix(prefix) });
    const next = await extract.getJob(stageJobId(jobId, 'extract', 1, RENDITION_PART));
    expect(next?.data).toMatchObject({ jobId, source, rendition: pdf });

    // Re-delivered (the same job data, now holding `pdf`): no conversion, the same extract job.
    const failing = Object.create(ctx.libreoffice) as LibreOffice;
    failing.toPdf = () => Promise.reject(new Error('must not convert again'));
    await convertStage.handle(recorded!.data as ConvertPayload, withConverter({ ...ctx, job: recorded! }, failing));
    expect(await extract.getJobCounts('waiting', 'prioritized')).toMatchObject({ waiting: 1 });
    await extract.close();
  }, 120_000);

  it('a conversion past the timeout kills the soffice process group and fails conversion_timeout', async () => {
    // A document that takes a while (many pages) against a 200 ms budget.
    const input = join(scratch, 'slow.html');
    await writeFile(input, `<html><body>${'<p>slow text paragraph</p>'.repeat(20_000)}</body></html>`);
    const quick = new LibreOffice((await LibreOffice.open(undefined, 1_000)).binary, 'test', 200);
    const error = await quick.toPdf(input, join(scratch, 'out')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConversionError);
    expect((error as ConversionError).code).toBe('conversion_timeout');
    // Nothing of that conversion is left running (its profile names it).
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(`readpack-lo-${process.pid}`) && l.includes('slow.html'));
    expect(left).toEqual([]);
  }, 60_000);

  it('a file LibreOffice cannot load fails conversion_failed (permanent: no retry)', async () => {
    const broken = buildZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 0 },
      { name: 'content.xml', data: '<not-odf' },
    ]);
    const stored = await storage.blobs.putBuffer(broken);
    const source = { sha256: stored.sha256, filename: 'bad.odt', mediaType: 'application/vnd.oasis.opendocument.text', size: stored.size };
    ctx.libreoffice ??= await LibreOffice.open(undefined, 120_000);
    ctx.job = await convertJob('job_convertbad000000000', source);
    await expect(convertStage.handle(ctx.job.data as ConvertPayload, withConverter(ctx))).rejects.toMatchObject({ name: 'PermanentFailure', code: 'conversion_failed' });
  }, 120_000);

  it('extract sends a DOC word-extractor cannot read to convert when a converter runs, else fails with the parser error', async () => {
    const stored = await storage.blobs.putBuffer(Buffer.from('a DOC word-extractor rejects'));
    const source = { sha256: stored.sha256, filename: 'old.doc', mediaType: 'application/msword', size: stored.size };
    // What a parser thread's DocumentError looks like once it crossed the thread boundary.
    const parsePool = { parse: () => Promise.reject(Object.assign(new Error('word-extractor cannot read the DOC file'), { name: 'DocumentError', code: 'corrupt_document' })) } as unknown as ParsePool;
    const run = async (jobId: string, available: boolean) => {
      const payload: ExtractPayload = { jobId, tenant: 'default', source, options: { engine: 'local', ocrLang: 'eng' } };
      const queue = new Queue('extract', { connection: redis, prefix: bullPrefix(prefix) });
      const job = await queue.add('extract', payload, { jobId });
      await queue.close();
      return extractStage.handle(payload, { ...ctx, job, parsePool, secrets, converterAvailable: () => Promise.resolve(available) });
    };
    await run('job_docfallback00000000', true);
    const converts = new Queue('convert', { connection: redis, prefix: bullPrefix(prefix) });
    expect((await converts.getJob(stageJobId('job_docfallback00000000', 'convert')))?.data).toMatchObject({ reason: 'unreadable', source });
    await expect(run('job_docnoconverter00000', false)).rejects.toMatchObject({ code: 'corrupt_document' });
    expect(await converts.getJob(stageJobId('job_docnoconverter00000', 'convert'))).toBeUndefined();
    await converts.close();
  });

  it('a new convert consumer kills the LibreOffice a dead consumer left running and removes its profile', async () => {
    // A pid that is certainly gone: a process that ran and exited.
    const gone = spawn('true');
    await new Promise((r) => gone.once('exit', r));
    const profile = join(tmpdir(), `readpack-lo-${gone.pid}`);
    await mkdir(profile, { recursive: true });
    // Stands in for soffice: its own process group, the dead consumer's profile on its command line.
    const orphan = spawn('sh', ['-c', `sleep 60; : -env:UserInstallation=file://${profile}`], { detached: true, stdio: 'ignore' });
    const exited = new Promise((r) => orphan.once('exit', r));
    // Not a profile of ours (no pid): left alone, whatever runs in it.
    const foreign = await mkdtemp(join(tmpdir(), 'readpack-lo-x'));
    const logged: unknown[] = [];
    await reapOrphans((message, meta) => logged.push({ message, ...meta }));
    expect((await stat(foreign)).isDirectory()).toBe(true);
    await rm(foreign, { recursive: true });
    await exited;
    expect(orphan.signalCode).toBe('SIGKILL');
    expect(logged).toEqual([expect.objectContaining({ pid: orphan.pid })]);
    await expect(stat(profile)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
