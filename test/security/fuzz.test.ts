import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STAGES } from '@readpack/config';
import { connectTestRedis, corpusManifest, deleteKeysWithPrefix, type CorpusEntry, fixturePath, testRedisUrl, uniqueName } from '@readpack/testing';
import { startConsumerProcess } from '../support/readpack-processes.js';
import type { ServiceProcess } from '../support/service-process.js';
import { startApiProcesses, type ApiProcess } from './support/api-processes.js';
import { TenantClient } from './support/client.js';
import { documentedJobErrorCodes } from './support/error-codes.js';
import { mutants, type Mutant, type Seed } from './support/mutations.js';

/**
 * Fuzzing the whole service, as production runs it: one API process and one consumer process per
 * stage, fed mutated corpus files (truncations, bit flips, overwrites, spliced ZIP entries).
 * `npm test` runs the short form: 30 mutants of the documents read without OCR. FUZZ_LONG=1
 * (`npm run test:fuzz`) runs 300, and adds the scans and images, whose every page goes through
 * render and OCR (seconds each). FUZZ_MUTATIONS overrides the count; FUZZ_SEED picks another set
 * of mutants (the default is fixed, so a failure reproduces; it is printed on failure).
 *
 * Every mutant must end in a 4xx at upload, or in a terminal job: done with a readable package, or
 * failed with a documented code. No consumer may exit (a crash would lose its jobs until a
 * takeover; an unhandled rejection crashes Node), none may log an unexpected error, and the
 * extract consumer's memory must come back to where the clean corpus left it.
 */
const LONG = process.env.FUZZ_LONG === '1';
const MUTATIONS = Number(process.env.FUZZ_MUTATIONS || (LONG ? 300 : 30));
const SEED = Number(process.env.FUZZ_SEED || 61_129);
const KEY = 'fuzzer-key-0123456789abcdef';
const IN_FLIGHT = 6;
/** Upload refusals a mutant may earn: its bytes are no longer a parseable type, or nothing is left. */
const UPLOAD_REFUSALS = new Set(['400 empty_file', '415 unsupported_media_type']);
/** GeoTopo alone parses for seconds; the other files cover the same formats in milliseconds. */
const SLOW_SEEDS = new Set(['GeoTopo-komprimiert.pdf']);

/** Scans and images: read by render + OCR, page by page. */
function needsOcr(entry: CorpusEntry): boolean {
  return entry.media_type.startsWith('image/') || (entry.media_type === 'application/pdf' && entry.has_text_layer === false);
}

function seeds(): Seed[] {
  const corpus = corpusManifest()
    .filter((entry) => !SLOW_SEEDS.has(entry.name) && (LONG || !needsOcr(entry)))
    .map((entry) => ({ name: entry.name, data: readFileSync(fixturePath(entry.name)) }));
  const csv = Array.from({ length: 50 }, (_, r) => `${r},"quoted, ${r}",${r * 3.5},naïve`).join('\r\n');
  const markdown = '# Heading\n\nSome *text* with ünïcödé, a [link](http://example.com) and a table:\n\n| a | b |\n| - | - |\n| 1 | 2 |\n';
  return [...corpus, { name: 'table.csv', data: Buffer.from(csv) }, { name: 'notes.md', data: Buffer.from(markdown) }];
}

/** Resident memory of a process (kB → bytes), threads included. */
function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

type Outcome = { mutant: Mutant; result: string };

describe('fuzzing uploads end to end', () => {
  const codes = documentedJobErrorCodes();
  const prefix = uniqueName('fuzz');
  let dataDir: string;
  let api: ApiProcess | undefined;
  let client: TenantClient;
  const consumers: ServiceProcess[] = [];
  const errorLines: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'readpack-fuzz-'));
    const vars = {
      REDIS_URL: testRedisUrl(),
      READPACK_PREFIX: prefix,
      DATA_DIR: dataDir,
      API_KEYS: `${KEY}:fuzzer`,
      UPLOAD_RATE_PER_MINUTE: '1000000',
      MAX_ACTIVE_JOBS_PER_TENANT: '1000000',
      PARSE_TIMEOUT_MS: '20000',
      OCR_CONCURRENCY: '2',
      LOG_LEVEL: 'info',
    };
    [api] = await startApiProcesses(1, vars);
    client = new TenantClient(api!.url, KEY);
    for (const stage of STAGES) {
      const proc = await startConsumerProcess(stage, vars);
      let partial = '';
      proc.child.stdout!.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.includes('"level":"error"') && !line.includes('"message":"job failed"')) errorLines.push(line);
      });
      consumers.push(proc);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all([api?.process.stop(), ...consumers.map((c) => c.stop())]);
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Uploads one document and follows it to its end; returns a one-line verdict. */
  async function run(file: { name: string; data: Buffer }): Promise<string> {
    const res = await client.upload({ name: file.name, data: file.data });
    if (res.status !== 202) {
      const body = (await res.json()) as { error?: { code?: string } };
      return `${res.status} ${body.error?.code}`;
    }
    const { jobId } = (await res.json()) as { jobId: string };
    const final = await client.terminal(jobId, 180_000);
    if (final.status === 'failed') return `failed ${final.error?.code}`;
    const pkg = await client.get(`/api/files/job/${jobId}/package`);
    const manifest = (await pkg.json()) as { text?: unknown };
    return pkg.status === 200 && typeof manifest.text === 'string' ? 'done' : `done but package ${pkg.status}`;
  }

  /** Checked before any verdict: if a process died, its own output says why, and every later failure follows from it. */
  function assertAllAlive(): void {
    for (const proc of [api!.process, ...consumers]) {
      const exit = { exitCode: proc.child.exitCode, signal: proc.child.signalCode };
      if (exit.exitCode !== null || exit.signal !== null) throw new Error(`a service process exited: ${JSON.stringify(exit)}\n${proc.outputTail()}`);
      expect(proc.outputTail()).not.toMatch(/unhandled|uncaught/i);
    }
  }

  async function runAll<T>(items: T[], work: (item: T) => Promise<Outcome>): Promise<Outcome[]> {
    const results: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < items.length) {
          const item = items[next++]!;
          results.push(await work(item));
        }
      }),
    );
    return results;
  }

  it(`${MUTATIONS} mutants (seed ${SEED}) all end in a stable outcome; no consumer crashes; memory returns`, async () => {
    const corpus = seeds();
    // Warm-up on the clean corpus: loads every parser, grows the pools to their working size.
    const clean = await runAll(corpus, async (s) => ({ mutant: { ...s, recipe: 'original' }, result: await run(s).catch((e: unknown) => `error ${String(e)}`) }));
    assertAllAlive();
    const unexpectedClean = clean.filter((o) => !o.result.startsWith('done') && !o.result.startsWith('failed '));
    expect(unexpectedClean).toEqual([]);
    const extractPid = consumers[STAGES.indexOf('extract')]!.pid;
    const baseline = rssBytes(extractPid);

    const cases = await mutants(corpus, MUTATIONS, SEED);
    const outcomes = await runAll(cases, async (mutant) => ({ mutant, result: await run(mutant).catch((e: unknown) => `error ${String(e)}`) }));

    assertAllAlive();
    expect(errorLines).toEqual([]);

    const unstable = outcomes.filter(({ result }) => {
      if (result === 'done') return false;
      if (UPLOAD_REFUSALS.has(result)) return false;
      const code = /^failed (\S+)$/.exec(result)?.[1];
      return code === undefined || code === 'internal_error' || !codes.has(code);
    });
    const describeCase = (o: Outcome) => `${o.mutant.name} → ${o.result} (${o.mutant.recipe})`;
    expect({ seed: SEED, unstable: unstable.map(describeCase) }).toEqual({ seed: SEED, unstable: [] });

    // Memory: after the run, the extract consumer holds no more than the clean corpus made it hold
    // (parser threads keep their warmed heaps; a leak per document would show as growth here).
    await new Promise((r) => setTimeout(r, 2_000));
    const after = rssBytes(extractPid);
    const summary = outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.result]: (acc[o.result] ?? 0) + 1 }), {});
    process.stdout.write(`fuzz seed ${SEED}: ${JSON.stringify(summary)}; extract RSS ${(baseline / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB\n`);
    expect(after).toBeLessThanOrEqual(baseline * 1.5 + 64 * 2 ** 20);
  }, Math.max(300_000, MUTATIONS * 4_000));
});

