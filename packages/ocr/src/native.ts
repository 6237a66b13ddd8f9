import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OcrError, errorMessage } from './errors.js';
import { nativeTesseractVersion } from './version.js';
export { nativeTesseractVersion };
import { type OcrImage, toTesseractInput } from './image-input.js';
import { type LanguageSpec, languageKey, parseLanguages } from './languages.js';
import { type OcrPage, pageFromTsv } from './page-result.js';
import type { OcrReader, RecognizeOptions, ReaderStats, ScriptDetection } from './reader.js';
import { type PageSettings, pageSettings } from './settings.js';
import { type LanguageData, resolveLanguageData } from './tessdata.js';

export interface NativeOcrEngineOptions {
  /** As for `OcrEngine`; native tesseract reads only uncompressed `<lang>.traineddata`. */
  tessdataDir?: string;
  /** Tesseract processes at once (each single-threaded: OMP_THREAD_LIMIT=1). Default 1. */
  concurrency?: number;
  /** A page still running after this long fails with `timeout` (a batch gets this per page). Default 120 s. */
  pageTimeoutMs?: number;
  /** Most waiting pages one process reads (a list file): start-up (model load) is paid once per batch. Default 8. */
  maxBatch?: number;
  /** Checked at construction (else on first use). */
  languages?: LanguageSpec[];
  /** The executable; default `tesseract` on PATH. */
  command?: string;
}

interface Job {
  data: LanguageData;
  key: string;
  input: Buffer;
  settings: PageSettings;
  resolve: (page: OcrPage) => void;
  reject: (err: unknown) => void;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return v;
}

/** What a finished tesseract process left: exit code (null when killed), stdout. */
interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Debian's `tesseract` behind the `OcrReader` interface: the same PGM (or encoded image) that
 * tesseract.js gets, the same TSV turned into the same `OcrPage`, the same typed errors. The CLI
 * cannot stay resident (a list file is read to its end before the first page), so start-up is
 * amortised by batching: a process takes every waiting page of its language set and settings, up
 * to `maxBatch`, through a list file, and its TSV on stdout is split by page number. A batch that
 * fails is retried page by page, so one unreadable image fails alone.
 */
export class NativeOcrEngine implements OcrReader {
  readonly origin: { parser: string; version: string };
  private readonly tessdataDir: string | undefined;
  private readonly concurrency: number;
  private readonly pageTimeoutMs: number;
  private readonly maxBatch: number;
  private readonly command: string;
  private readonly languageData = new Map<string, LanguageData>();
  private readonly queue: Job[] = [];
  private readonly running = new Set<{ kill: () => void }>();
  /** Batches in progress (writing files, running, cleaning up): close waits for them before removing the scratch directory. */
  private readonly batches = new Set<Promise<void>>();
  private busy = 0;
  private started = 0;
  private closed = false;
  private scratch: Promise<string> | undefined;

  constructor(options: NativeOcrEngineOptions = {}) {
    this.tessdataDir = options.tessdataDir;
    this.concurrency = positiveInteger(options.concurrency, 1, 'concurrency');
    this.pageTimeoutMs = positiveInteger(options.pageTimeoutMs, 120_000, 'pageTimeoutMs');
    this.maxBatch = positiveInteger(options.maxBatch, 8, 'maxBatch');
    this.command = options.command ?? 'tesseract';
    this.origin = { parser: 'tesseract', version: nativeTesseractVersion(this.command) };
    for (const spec of options.languages ?? []) this.dataFor(parseLanguages(spec));
  }

  private dataFor(langs: string[]): LanguageData {
    const key = languageKey(langs);
    let data = this.languageData.get(key);
    if (!data) {
      data = resolveLanguageData(langs, this.tessdataDir);
      if (data.gzip) {
        throw new OcrError('language_data_missing', `native tesseract reads only uncompressed traineddata; ${data.langPath} has ${key} gzipped: gunzip it or use OCR_ENGINE=tesseract.js`);
      }
      this.languageData.set(key, data);
    }
    return data;
  }

  async recognize(image: OcrImage, options: RecognizeOptions = {}): Promise<OcrPage> {
    if (this.closed) throw new OcrError('engine_closed', 'the OCR engine is closed');
    const langs = parseLanguages(options.lang ?? 'eng');
    const data = this.dataFor(langs);
    const input = toTesseractInput(image);
    const settings = pageSettings(options.segmentation, options.dpi);
    return new Promise<OcrPage>((resolve, reject) => {
      this.queue.push({ data, key: languageKey(langs), input, settings, resolve, reject });
      this.dispatch();
    });
  }

  /** Nothing to warm: a process per batch. Checks that the language data is there. */
  async warmUp(lang: LanguageSpec = 'eng'): Promise<void> {
    if (this.closed) throw new OcrError('engine_closed', 'the OCR engine is closed');
    this.dataFor(parseLanguages(lang));
  }

  /** Tesseract's OSD (`--psm 0`, Debian's tesseract-ocr-osd). Undefined when it cannot tell (too little text). */
  async detectScript(image: OcrImage): Promise<ScriptDetection | undefined> {
    if (this.closed) throw new OcrError('engine_closed', 'the OCR engine is closed');
    const data = resolveLanguageData(['osd'], this.tessdataDir);
    const input = toTesseractInput(image);
    const detection = this.osd(data, input);
    const tracked = detection.then(() => undefined, () => undefined);
    this.batches.add(tracked);
    void tracked.finally(() => this.batches.delete(tracked));
    return detection;
  }

  private async osd(data: LanguageData, input: Buffer): Promise<ScriptDetection | undefined> {
    const dir = await this.scratchDir();
    const file = join(dir, `osd-${process.pid}-${(this.started += 1)}.img`);
    try {
      await writeFile(file, input);
      const exit = await this.run([file, '-', '--tessdata-dir', data.langPath, '--psm', '0'], this.pageTimeoutMs);
      // A non-zero exit here is OSD declining (too few characters), not a failure of the engine.
      if (exit.code !== 0) return undefined;
      const script = /^Script:\s*(\S+)/m.exec(exit.stdout)?.[1];
      const confidence = Number(/^Script confidence:\s*([\d.]+)/m.exec(exit.stdout)?.[1] ?? NaN);
      return script ? { script, confidence: Number.isFinite(confidence) ? confidence : 0 } : undefined;
    } finally {
      await rm(file, { force: true });
    }
  }

  stats(): ReaderStats {
    return { workers: this.busy, busy: this.busy, queued: this.queue.length, started: this.started, idleStopped: 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closedError = new OcrError('engine_closed', 'the OCR engine was closed');
    for (const job of this.queue.splice(0)) job.reject(closedError);
    for (const child of this.running) child.kill();
    await Promise.all([...this.batches]);
    if (this.scratch) await rm(await this.scratch, { recursive: true, force: true });
  }

  private scratchDir(): Promise<string> {
    this.scratch ??= mkdtemp(join(tmpdir(), 'readpack-ocr-native-'));
    return this.scratch;
  }

  private dispatch(): void {
    while (!this.closed && this.busy < this.concurrency && this.queue.length > 0) {
      const first = this.queue[0]!;
      const batch = this.queue.filter((j) => j.key === first.key && j.settings.psm === first.settings.psm && j.settings.dpi === first.settings.dpi).slice(0, this.maxBatch);
      for (const job of batch) this.queue.splice(this.queue.indexOf(job), 1);
      this.busy += 1;
      const running: Promise<void> = this.runBatch(batch).finally(() => {
        this.busy -= 1;
        this.batches.delete(running);
        this.dispatch();
      });
      this.batches.add(running);
    }
  }

  private async runBatch(batch: Job[]): Promise<void> {
    try {
      const pages = await this.readPages(batch);
      batch.forEach((job, i) => job.resolve(pages[i]!));
    } catch (err) {
      if (batch.length > 1 && err instanceof OcrError && err.code === 'recognition_failed') {
        // Which page failed is not told apart: each one again on its own, so only that one fails.
        for (const job of batch) await this.runBatch([job]);
        return;
      }
      for (const job of batch) job.reject(err);
    }
  }

  private async readPages(batch: Job[]): Promise<OcrPage[]> {
    const { data, settings } = batch[0]!;
    const dir = await this.scratchDir();
    const id = `${process.pid}-${(this.started += 1)}`;
    const files = batch.map((_, i) => join(dir, `${id}-${i}.img`));
    const list = join(dir, `${id}.list`);
    try {
      await Promise.all(batch.map((job, i) => writeFile(files[i]!, job.input)));
      await writeFile(list, `${files.join('\n')}\n`);
      const args = [list, '-', '--tessdata-dir', data.langPath, '-l', languageKey(data.langs), '--oem', '1', '--psm', settings.psm];
      if (settings.dpi !== undefined) args.push('--dpi', String(settings.dpi));
      args.push('tsv');
      const exit = await this.run(args, this.pageTimeoutMs * batch.length);
      if (exit.code !== 0) {
        throw new OcrError('recognition_failed', `native tesseract exited with code ${exit.code}: ${exit.stderr.trim().split('\n').slice(-3).join(' ')}`);
      }
      return splitTsvPages(exit.stdout, batch.length).map(pageFromTsv);
    } finally {
      await Promise.all([list, ...files].map((f) => rm(f, { force: true })));
    }
  }

  /** Runs tesseract single-threaded; rejects with `timeout` (process killed) or `worker_failed` (could not start). */
  private run(args: string[], timeoutMs: number): Promise<Exit> {
    if (this.closed) return Promise.reject(new OcrError('engine_closed', 'the OCR engine was closed'));
    return new Promise<Exit>((resolve, reject) => {
      // One thread per process: OpenMP's threads only contend with the other processes and pages.
      const child = spawn(this.command, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let failure: OcrError | undefined;
      const entry = { kill: () => child.kill('SIGKILL') };
      this.running.add(entry);
      const timer = setTimeout(() => {
        failure = new OcrError('timeout', `native OCR ran past ${timeoutMs} ms; its process was stopped`);
        child.kill('SIGKILL');
      }, timeoutMs);
      child.stdout.on('data', (d: Buffer) => out.push(d));
      child.stderr.on('data', (d: Buffer) => err.push(d));
      child.once('error', (e) => {
        failure ??= new OcrError('worker_failed', `native tesseract could not run: ${errorMessage(e)}`, { cause: e });
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        this.running.delete(entry);
        if (this.closed && !failure) failure = new OcrError('engine_closed', 'the OCR engine was closed');
        if (failure) reject(failure);
        else resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
    });
  }
}

/** Tesseract's TSV of several images, one TSV per image (its page_num column counts them from 1). */
export function splitTsvPages(tsv: string, pages: number): string[] {
  const out: string[][] = Array.from({ length: pages }, () => []);
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t', 2);
    const page = Number(cols[1]);
    if (!Number.isInteger(page) || page < 1 || page > pages) continue;
    out[page - 1]!.push(row);
  }
  return out.map((rows) => rows.join('\n'));
}
