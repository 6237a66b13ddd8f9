import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { bullPrefix } from '@readpack/queues';
import { assertValidPackage, connectTestRedis, containsSnippet, fixturePath, repoRoot } from '@readpack/testing';
import { startPipeline, type Pipeline } from '../harness.js';

const run = promisify(execFile);
const CLI = join(repoRoot(), 'apps', 'cli', 'dist', 'main.js');

/** Runs the built `readpack` command (npm test builds before testing), never throwing on exit codes. */
async function readpack(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let pipeline: Pipeline;
let out: string;

beforeAll(async () => {
  pipeline = await startPipeline();
  out = await mkdtemp(join(tmpdir(), 'readpack-cli-'));
});
afterAll(async () => {
  await pipeline?.stop();
  await rm(out, { recursive: true, force: true });
});

describe('readpack parse', () => {
  it('parses three corpus files against a running service, writes three packages and exits 0', async () => {
    const files = ['word_sample.docx', 'pdflatex-image.pdf', 'table-multiple.xlsx'].map((f) => fixturePath(f));
    const result = await readpack(['parse', ...files, '--server', pipeline.api.url, '--out', out]);
    expect(result).toMatchObject({ code: 0 });
    expect((await readdir(out)).sort()).toEqual(['pdflatex-image.pdf.json', 'table-multiple.xlsx.json', 'word_sample.docx.json']);
    const docx = JSON.parse(await readFile(join(out, 'word_sample.docx.json'), 'utf8')) as { text: string };
    assertValidPackage(docx);
    expect(containsSnippet(docx.text, 'Summer activities')).toBe(true);
  }, 150_000);

  it('writes Markdown with --format md', async () => {
    const dir = join(out, 'md');
    const result = await readpack(['parse', fixturePath('word_tables.docx'), '--server', pipeline.api.url, '--out', dir, '--format', 'md']);
    expect(result.code).toBe(0);
    expect(await readFile(join(dir, 'word_tables.docx.md'), 'utf8')).toMatch(/<table>|\| --- \|/);
  }, 120_000);

  it('exits non-zero and prints the reason when a file fails', async () => {
    const dir = join(out, 'failing');
    const result = await readpack(['parse', fixturePath('word_tables.docx'), fixturePath('invalid.pdf'), '--server', pipeline.api.url, '--out', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✗ .*invalid\.pdf → corrupt_document: /);
    expect(result.stdout).toMatch(/✓ .*word_tables\.docx → /);
  }, 120_000);
});

describe('readpack ops doctor', () => {
  it('names a queue whose jobs wait with no live consumer, and clears it once one runs', async () => {
    const prefix = `${pipeline.config.redis.prefix}-doctor`;
    const env = { REDIS_URL: pipeline.config.redis.url, READPACK_PREFIX: prefix, DATA_DIR: pipeline.config.dataDir };
    const connection = connectTestRedis();
    const queue = new Queue('render', { connection, prefix: bullPrefix(prefix) });
    await queue.add('render', { nothing: true });
    const before = await readpack(['ops', 'doctor'], env);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/render consumers\s+PROBLEM\s+1 jobs waiting and no live render consumer/);
    expect(before.stdout).toMatch(/Redis eviction\s+OK\s+maxmemory-policy noeviction/);

    const workerConnection = connectTestRedis();
    const worker = new Worker('render', async () => 'ok', { connection: workerConnection, prefix: bullPrefix(prefix), autorun: false });
    worker.run().catch(() => undefined);
    await worker.waitUntilReady();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await readpack(['ops', 'doctor'], env);
    expect(after.stdout).toMatch(/render consumers\s+OK\s+1 live/);
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await Promise.all([connection.quit(), workerConnection.quit()]);
  }, 60_000);
});
