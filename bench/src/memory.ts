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
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import { ThrowawayRedis } from '@readpack/testing';
import { freePort, rssMb, writeBenchSection } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = Number(process.env.BENCH_PAGES ?? 120);
const OCR_CONSUMERS = 2;
const RENDER_DPI = 300;
/** Growth up to this many pages' worth is what processing a page or two at a time costs (one per OCR worker). */
const FLAT_PAGES = 4;



/** RSS of a process and its threads' owner only (worker threads share the process). */
function sampleAll(procs: { stage: string; child: ChildProcess }[]): Map<string, number> {
  const byStage = new Map<string, number>();
  for (const { stage, child } of procs) byStage.set(`${stage}:${child.pid}`, rssMb(child.pid!));
  return byStage;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-memory-'));
  const redis = await ThrowawayRedis.start({ stdio: 'ignore' });
  const apiPort = await freePort();
  const env = {
    ...process.env,
    REDIS_URL: redis.url,
    READPACK_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    DATA_DIR: join(work, 'data'),
    PORT: String(apiPort),
    LOG_LEVEL: 'warn',
    OCR_CONCURRENCY: '1',
    RENDER_DPI: String(RENDER_DPI),
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
    // One page's pixels at the render resolution, 8-bit gray: the unit growth is measured in.
    const { width, height } = scan.getPage(0).getSize();
    const pixels = Math.round((width * RENDER_DPI) / 72) * Math.round((height * RENDER_DPI) / 72);
    const PAGE_MB = pixels / 1e6;
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
    const growths = [...peak.keys()].map((key) => {
      const [stage, pid] = key.split(':');
      const before = idle.get(key) ?? 0;
      return { stage, pid, before, peak: peak.get(key)!, growth: peak.get(key)! - before };
    });
    const rows = growths.map((g) => `| ${g.stage} (pid ${g.pid}) | ${g.before.toFixed(0)} MB | ${g.peak.toFixed(0)} MB | ${g.growth.toFixed(0)} MB |`);
    const largest = growths.reduce((a, b) => (b.growth > a.growth ? b : a));
    const allPagesMb = PAGES * PAGE_MB;
    const pagesWorth = largest.growth / PAGE_MB;
    // The verdict is this run's numbers compared, never a sentence written in advance.
    const verdict =
      pagesWorth <= FLAT_PAGES
        ? `The largest growth, ${largest.growth.toFixed(0)} MB (${largest.stage}), is ${pagesWorth.toFixed(1)} pages' worth of pixels, against ${allPagesMb.toFixed(0)} MB for all ${PAGES}: in this run no consumer held the document's pages at once.`
        : `The largest growth, ${largest.growth.toFixed(0)} MB (${largest.stage}), is ${pagesWorth.toFixed(1)} pages' worth of pixels (all ${PAGES} would be ${allPagesMb.toFixed(0)} MB): more than the ${FLAT_PAGES} pages one-page-at-a-time processing explains, so this run does not show flat memory (the growth may be engine memory rather than pages; a run at another BENCH_PAGES would tell).`;
    const section = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: a ${PAGES}-page scanned PDF (epson.pdf's page, ${RENDER_DPI} dpi renders) through`,
      `1 extract, 1 render, ${OCR_CONSUMERS} OCR (1 warm worker each) and 1 assemble consumer processes; final status **${status}** (${progress} pages) in ${seconds.toFixed(0)} s`,
      `(${(seconds / PAGES).toFixed(2)} s/page with ${OCR_CONSUMERS} OCR consumers on ${cpus().length} cores). RSS sampled every 250 ms from /proc.`,
      '',
      '| consumer | RSS idle after start | peak RSS during the run | growth |',
      '| --- | ---: | ---: | ---: |',
      ...rows,
      '',
      `A page at ${RENDER_DPI} dpi is ${(pixels / 1e6).toFixed(1)} Mpx, ${PAGE_MB.toFixed(1)} MB of 8-bit gray. ${verdict}`,
    ].join('\n');
    writeBenchSection('memory', section);
  } finally {
    for (const { child } of procs) child.kill('SIGTERM');
    api.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 3_000));
    await redis.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
