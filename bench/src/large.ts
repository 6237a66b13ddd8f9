/**
 * `npm run bench:large` — a long text PDF sliced across two extract consumers (issue 14, item 4).
 *
 * Baselines in the same run, on the same files: `pdftotext` (poppler) reading the whole PDF, and
 * the same pipeline with slicing off (PDF_SLICE_ABOVE above the page count: one extract job).
 * Measured: upload → `done`, and each extract consumer's RSS growth (peak − idle after start-up,
 * sampled every 100 ms from /proc; worker threads are part of the process). Each scenario gets
 * fresh consumers, so one document's leftovers are not the next one's baseline. Results go to the
 * `bench:large` section of docs/benchmarks.md; every sentence there is computed from this run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberedPdf } from '@readpack/testing';
import { benchRedis, describeMachine, freePort, rssMb, runBench, stopOnCleanUp, writeBenchSection } from './support.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const LARGE = Number(process.env.BENCH_LARGE_PAGES ?? 2_000);
const HUGE = Number(process.env.BENCH_HUGE_PAGES ?? 10_000);
const EXTRACT_CONSUMERS = 2;
/** The generated document is this many distinct pages, repeated. */
const UNIT_PAGES = 100;
/** The goals of issue 14: done within 1.2× pdftotext's time; extract consumer growth at most 150 MB. */
const TIME_GOAL = 1.2;
const GROWTH_GOAL_MB = 150;
const TIMELINE = process.env.BENCH_LARGE_TIMELINE === '1';


interface Scenario {
  label: string;
  pages: number;
  path: string;
  sliced: boolean;
}

interface Outcome extends Scenario {
  status: string;
  seconds: number;
  pdftotextSeconds: number;
  /** Our parser alone on the same parts in as many processes (parserAlone); sliced rows only. */
  parserSeconds?: number;
  /** Per extract consumer: RSS idle after start-up, and its peak during the run. */
  consumers: { idle: number; peak: number }[];
  /** The assemble consumer, likewise: it holds the merged document's extraction and writes the package. */
  assembler: { idle: number; peak: number };
}

/**
 * Our parser alone on the same document, in as many processes as the pipeline has extract
 * consumers: the PDF split as the pipeline splits it (qpdf, PDF_SLICE_PAGES a part), the parts
 * shared out in turn. Seconds until the last process has read its last part (start-up excluded).
 */
async function parserAlone(path: string, slicePages: number, work: string): Promise<number> {
  const dir = join(work, 'parts');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  // qpdf names each part by its page range (`part-0201-0400.pdf`); exit 3 means warnings only.
  const split = spawnSync('qpdf', [`--split-pages=${slicePages}`, path, join(dir, 'part-%d.pdf')], { stdio: 'ignore' });
  if (split.status !== 0 && split.status !== 3) throw new Error(`qpdf could not split ${path} (status ${String(split.status)})`);
  const parts = readdirSync(dir)
    .map((name) => /^part-(\d+)-(\d+)\.pdf$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ firstPage: Number(m[1]) - 1, pages: Number(m[2]) - Number(m[1]) + 1, path: join(dir, m[0]) }))
    .sort((a, b) => a.firstPage - b.firstPage);
  const shares = Array.from({ length: EXTRACT_CONSUMERS }, (_, i) => parts.filter((_, j) => j % EXTRACT_CONSUMERS === i));
  const results = await Promise.all(
    shares.map(
      (share) =>
        new Promise<{ ms: number; pages: number }>((resolve, reject) => {
          const child = spawn(process.execPath, [join(REPO, 'bench/dist/large-parser.js'), ...share.map((p) => `${p.firstPage}:${p.pages}:${p.path}`)], { stdio: ['ignore', 'pipe', 'inherit'] });
          stopOnCleanUp(child);
          let out = '';
          child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
          child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { ms: number; pages: number }) : reject(new Error(`parser baseline exited ${String(code)}`))));
        }),
    ),
  );
  const pages = results.reduce((n, r) => n + r.pages, 0);
  if (pages !== parts.reduce((n, p) => n + p.pages, 0)) throw new Error('the parser baseline read fewer pages than the parts hold');
  rmSync(dir, { recursive: true, force: true });
  return Math.max(...results.map((r) => r.ms)) / 1000;
}

function pdftotext(path: string): number {
  const started = process.hrtime.bigint();
  const run = spawnSync('pdftotext', [path, '/dev/null'], { stdio: 'ignore' });
  if (run.status !== 0) throw new Error(`pdftotext failed on ${path} (status ${String(run.status)})`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function runScenario(scenario: Scenario, baseEnv: NodeJS.ProcessEnv, apiPort: number, work: string): Promise<Outcome> {
  const env = { ...baseEnv, PDF_SLICE_ABOVE: scenario.sliced ? String(baseEnv.PDF_SLICE_ABOVE ?? 400) : '100000' };
  const spawned: ChildProcess[] = [];
  const start = (stage: string): ChildProcess => {
    const child = spawn(process.execPath, [join(REPO, 'apps/worker/dist/main.js'), stage], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    spawned.push(child);
    return child;
  };
  const stops = [];
  const extracts = Array.from({ length: EXTRACT_CONSUMERS }, () => start('extract'));
  const assembler = start('assemble');
  for (const child of spawned) stops.push(stopOnCleanUp(child));
  try {
    const idle = await settledRss([...extracts, assembler]);
    const peak = [...idle];
    const sampler = setInterval(() => [...extracts, assembler].forEach((c, i) => (peak[i] = Math.max(peak[i]!, rssMb(c.pid!)))), 100);
    const pdftotextSeconds = pdftotext(scenario.path);
    const parserSeconds = scenario.sliced ? await parserAlone(scenario.path, Number(baseEnv.PDF_SLICE_PAGES), work) : undefined;
    const form = new FormData();
    form.append('file', new Blob([readFileSync(scenario.path)]), `${scenario.label.replace(/\W+/g, '-')}.pdf`);
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${apiPort}/api/files`, { method: 'POST', body: form });
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    const { jobId } = (await res.json()) as { jobId: string };
    let status = '';
    let lastLine = 0;
    while (status !== 'done' && status !== 'failed') {
      await new Promise((r) => setTimeout(r, 100));
      const body = (await (await fetch(`http://127.0.0.1:${apiPort}/api/files/job/${jobId}`)).json()) as { status: string; phase?: string; progress?: { done: number; total: number } };
      status = body.status;
      // BENCH_LARGE_TIMELINE=1: where in the job each consumer's memory goes, twice a second.
      if (TIMELINE && Date.now() - lastLine >= 500) {
        lastLine = Date.now();
        const rss = extracts.map((c) => `${rssMb(c.pid!).toFixed(0)} MB`).join(', ');
        console.log(`  ${((Date.now() - started) / 1000).toFixed(1)} s ${body.phase ?? status} ${body.progress?.done ?? 0}/${body.progress?.total ?? 0} pages; extract RSS ${rss}`);
      }
    }
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    console.log(`${scenario.label}: ${status} in ${seconds.toFixed(1)} s (pdftotext ${pdftotextSeconds.toFixed(1)} s${parserSeconds === undefined ? '' : `, our parser alone ${parserSeconds.toFixed(1)} s`})`);
    return { ...scenario, status, seconds, pdftotextSeconds, ...(parserSeconds === undefined ? {} : { parserSeconds }), consumers: extracts.map((_, n) => ({ idle: idle[n]!, peak: peak[n]! })), assembler: { idle: idle[EXTRACT_CONSUMERS]!, peak: peak[EXTRACT_CONSUMERS]! } };
  } finally {
    for (const stop of stops) await stop();
  }
}

/**
 * RSS once start-up is over: at least 6 s after the spawn, then until no consumer moved by more
 * than 2 MB in a second (a loaded machine starts processes slowly), at most 60 s.
 */
async function settledRss(children: readonly ChildProcess[]): Promise<number[]> {
  await new Promise((r) => setTimeout(r, 6_000));
  let last = children.map((c) => rssMb(c.pid!));
  for (let waited = 0; waited < 60; waited += 1) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = children.map((c) => rssMb(c.pid!));
    const moved = Math.max(...now.map((mb, i) => Math.abs(mb - last[i]!)));
    last = now;
    if (moved <= 2) break;
  }
  return last;
}

const growth = (o: Outcome): number => Math.max(...o.consumers.map((c) => c.peak - c.idle));
const assembleGrowth = (o: Outcome): number => o.assembler.peak - o.assembler.idle;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'readpack-bench-large-'));
  try {
    const redis = await benchRedis();
    const apiPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      REDIS_URL: redis.url,
      READPACK_PREFIX: `bench${randomBytes(3).toString('hex')}`,
      DATA_DIR: join(work, 'data'),
      PORT: String(apiPort),
      LOG_LEVEL: 'warn',
      MAX_UPLOAD_BYTES: String(1024 ** 3),
      PDF_SLICE_ABOVE: process.env.PDF_SLICE_ABOVE ?? '400',
      PDF_SLICE_PAGES: process.env.PDF_SLICE_PAGES ?? '200',
    };
    const api = spawn(process.execPath, [join(REPO, 'apps/api/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    stopOnCleanUp(api);
    const loadBefore = loadavg()[0]!;
    // pdf-lib writes a hundred pages in seconds, not ten thousand: poppler's pdfunite repeats them.
    const unit = join(work, `text-${UNIT_PAGES}.pdf`);
    writeFileSync(unit, (await numberedPdf({ pages: UNIT_PAGES })).bytes);
    const files = new Map<number, string>();
    for (const pages of [LARGE, HUGE]) {
      if (pages % UNIT_PAGES !== 0) throw new Error(`BENCH_*_PAGES must be multiples of ${UNIT_PAGES}`);
      const path = join(work, `text-${pages}.pdf`);
      const unite = spawnSync('pdfunite', [...Array.from({ length: pages / UNIT_PAGES }, () => unit), path], { stdio: ['ignore', 'ignore', 'inherit'] });
      if (unite.status !== 0) throw new Error(`pdfunite failed (status ${String(unite.status)})`);
      files.set(pages, path);
      console.log(`generated ${pages} pages (${(statSync(path).size / 1e6).toFixed(1)} MB)`);
    }
    const scenarios: Scenario[] = [
      { label: `${LARGE} pages, sliced`, pages: LARGE, path: files.get(LARGE)!, sliced: true },
      { label: `${LARGE} pages, one extract job`, pages: LARGE, path: files.get(LARGE)!, sliced: false },
      { label: `${HUGE} pages, sliced`, pages: HUGE, path: files.get(HUGE)!, sliced: true },
    ];
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push(await runScenario(scenario, env, apiPort, work));
    const loadAfter = loadavg()[0]!;

    const rows = outcomes.map((o) => {
      const ratio = o.seconds / o.pdftotextSeconds;
      const rss = o.consumers.map((c) => `${c.idle.toFixed(0)} → ${c.peak.toFixed(0)}`).join(', ');
      const alone = o.parserSeconds === undefined ? '— | —' : `${o.parserSeconds.toFixed(1)} s | ${(o.seconds / o.parserSeconds).toFixed(2)}×`;
      return `| ${o.label} | **${o.status}** | ${o.seconds.toFixed(1)} s | ${o.pdftotextSeconds.toFixed(1)} s | ${ratio.toFixed(2)}× | ${alone} | ${rss} MB | ${growth(o).toFixed(0)} MB | ${o.assembler.idle.toFixed(0)} → ${o.assembler.peak.toFixed(0)} MB |`;
    });
    const [sliced, whole, huge] = outcomes as [Outcome, Outcome, Outcome];
    const ratio = sliced.seconds / sliced.pdftotextSeconds;
    const verdicts = [
      `Time: the sliced ${LARGE}-page PDF was done in ${ratio.toFixed(2)}× pdftotext's time, ${ratio <= TIME_GOAL ? 'within' : 'outside'} the ${TIME_GOAL}× goal; as one extract job it took ${(whole.seconds / whole.pdftotextSeconds).toFixed(2)}× (slicing ${whole.seconds > sliced.seconds ? `${(whole.seconds / sliced.seconds).toFixed(2)}× faster` : `${(sliced.seconds / whole.seconds).toFixed(2)}× slower`}).`,
      ...[sliced, huge].map((o) => {
        const alone = o.parserSeconds!;
        return `${o.label}: our parser alone read the same parts in ${alone.toFixed(1)} s in ${EXTRACT_CONSUMERS} processes, ${(alone / o.pdftotextSeconds).toFixed(2)}× pdftotext's time; the pipeline took ${(o.seconds / alone).toFixed(2)}× the parser's own time (upload, plan, split, merge, assemble and hand-offs included).`;
      }),
      `Memory: the largest extract consumer growth was ${growth(sliced).toFixed(0)} MB sliced, ${growth(sliced) <= GROWTH_GOAL_MB ? 'within' : 'over'} the ${GROWTH_GOAL_MB} MB goal, against ${growth(whole).toFixed(0)} MB as one job.`,
      `${HUGE} pages: **${huge.status}** in ${huge.seconds.toFixed(1)} s (${(huge.seconds / huge.pdftotextSeconds).toFixed(2)}× pdftotext), largest extract consumer growth ${growth(huge).toFixed(0)} MB, ${(growth(huge) / Math.max(1, growth(sliced))).toFixed(2)}× the ${LARGE}-page sliced run's.`,
      `The assemble consumer (the merged extraction read, the package built and written) grew by ${assembleGrowth(sliced).toFixed(0)} MB for ${LARGE} pages and ${assembleGrowth(huge).toFixed(0)} MB for ${HUGE}.`,
    ];
    const section = [
      `### \`npm run bench:large\`: large PDFs sliced across extract consumers`,
      '',
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${describeMachine(`load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end`)}.`,
      `Generated text PDFs (packages/testing numberedPdf, ${UNIT_PAGES} pages with a running header, page number, ~40 lines a page, repeated by pdfunite); ${EXTRACT_CONSUMERS} extract consumer processes`,
      `(EXTRACT_CONCURRENCY default) and 1 assemble consumer, fresh for each row; PDF_SLICE_ABOVE=${env.PDF_SLICE_ABOVE}, PDF_SLICE_PAGES=${env.PDF_SLICE_PAGES}.`,
      `Time = upload → \`done\`; pdftotext = poppler's \`pdftotext\` on the same file in the same run, just before the upload; parser alone = our PDF parser (parsePdfPages)`,
      `on the parts qpdf splits the PDF into, as the slices read them, in ${EXTRACT_CONSUMERS} processes (bench/src/large-parser.ts), in the same run. RSS idle → peak per extract consumer, and of the assemble consumer.`,
      '',
      '| document | status | upload → done | pdftotext | × pdftotext | parser alone | × parser alone | extract RSS idle → peak | largest growth | assemble RSS idle → peak |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |',
      ...rows,
      '',
      ...verdicts,
      loadBefore > 4 || loadAfter > 4 ? `The machine was shared with other work (load average ${loadBefore.toFixed(1)}–${loadAfter.toFixed(1)} on its cores): times are noisy and to be re-run on a quiet machine.` : 'The machine was otherwise quiet (load average under 4).',
    ].join('\n');
    writeBenchSection('large', section);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await runBench(main);
