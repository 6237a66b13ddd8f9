import { OcrError } from './errors.js';
import { type OcrImage, toTesseractInput } from './image-input.js';
import { type LanguageSpec, languageKey, parseLanguages } from './languages.js';
import { OcrWorker } from './ocr-worker.js';
import { type OcrPage, pageFromTsv } from './page-result.js';
import type { OcrReader, RecognizeOptions, ReaderStats, ScriptDetection } from './reader.js';
import { type IdleCandidate, idleToStop, nextIdleDeadline } from './idle-workers.js';
import { type PageSettings, pageSettings } from './settings.js';
import { type LanguageData, resolveLanguageData } from './tessdata.js';
import { TESSERACT_VERSION } from './version.js';

export interface OcrEngineOptions {
  /**
   * Directory with `<lang>.traineddata[.gz]`; the caller passes TESSDATA_DIR. Unset: Debian's
   * /usr/share/tesseract-ocr/5/tessdata, else the `@tesseract.js-data/<lang>` package.
   */
  tessdataDir?: string;
  /** Most workers (= pages in flight) across all language sets. Default 1; one per core is the useful maximum. */
  concurrency?: number;
  /**
   * Workers kept through an idle period; those beyond it (started when more pages were in hand)
   * are stopped once idle for `idleWorkerMs`, which gives their memory (≈110 MB each) back.
   * Default `concurrency`: none stopped. At most `concurrency`; 0 stops every idle worker.
   */
  warmWorkers?: number;
  /** How long a worker beyond `warmWorkers` may stay idle before it is stopped. Default 30 s. */
  idleWorkerMs?: number;
  /**
   * A worker is replaced after this many pages. WASM memory grows to the largest page a worker
   * has seen and never shrinks; a fresh worker costs ~0.5 s. Default 50.
   */
  pagesPerWorker?: number;
  /** A page still running after this long fails with `timeout` and its worker is stopped. Default 120 s. */
  pageTimeoutMs?: number;
  /** Checked when the engine is constructed (else on first use): a missing one throws at once. */
  languages?: LanguageSpec[];
}

interface Job {
  data: LanguageData;
  key: string;
  input: Buffer;
  settings: PageSettings;
  resolve: (page: OcrPage) => void;
  reject: (err: unknown) => void;
}

interface Slot extends IdleCandidate {
  key: string;
  /** Undefined while the worker starts. */
  worker?: OcrWorker;
}

const WORKER_START_TIMEOUT_MS = 60_000;
/**
 * A worker start costs ~0.5 s of CPU; stopping one that the next burst needs again wastes it. At
 * 30 s, pages arriving in bursts just over 30 s apart (the worst case) spend ~0.5 s per 30 s on
 * restarts, under 2 % of a core; a page queue that drains within a batch upload never waits for
 * a restart, and the memory of a burst is back within half a minute of its end.
 */
const DEFAULT_IDLE_WORKER_MS = 30_000;

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${String(value)}`);
  return v;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  return v;
}

/**
 * Offline OCR with a pool of warm tesseract.js workers. Workers are started on demand, one
 * language set each, up to `concurrency` in total; a job for a language set without an idle
 * worker takes a free place or, when all places are taken, replaces an idle worker of another
 * set. Pages are served first come, first served. Beyond `warmWorkers`, a worker idle for
 * `idleWorkerMs` is stopped (the longest idle first), so a burst's extra workers do not hold
 * memory at rest. Always `close()` the engine: its workers are threads that keep the process alive.
 */
export class OcrEngine implements OcrReader {
  readonly origin = { parser: 'tesseract.js', version: TESSERACT_VERSION };
  private readonly tessdataDir: string | undefined;
  private readonly concurrency: number;
  private readonly pagesPerWorker: number;
  private readonly pageTimeoutMs: number;
  private readonly warmWorkers: number;
  private readonly idleWorkerMs: number;
  private idleTimer: { timer: NodeJS.Timeout; due: number } | undefined;
  private idleStopped = 0;
  private readonly languageData = new Map<string, LanguageData>();
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly stopping = new Set<Promise<void>>();
  private closed = false;
  private started = 0;
  /** One OSD worker, outside the pool: detection is rare (images without a language) and quick. */
  private osd: Promise<OcrWorker> | undefined;
  private osdQueue: Promise<unknown> = Promise.resolve();

  constructor(options: OcrEngineOptions = {}) {
    this.tessdataDir = options.tessdataDir;
    this.concurrency = positiveInteger(options.concurrency, 1, 'concurrency');
    this.pagesPerWorker = positiveInteger(options.pagesPerWorker, 50, 'pagesPerWorker');
    this.pageTimeoutMs = positiveInteger(options.pageTimeoutMs, 120_000, 'pageTimeoutMs');
    this.warmWorkers = Math.min(nonNegativeInteger(options.warmWorkers, this.concurrency, 'warmWorkers'), this.concurrency);
    this.idleWorkerMs = positiveInteger(options.idleWorkerMs, DEFAULT_IDLE_WORKER_MS, 'idleWorkerMs');
    for (const spec of options.languages ?? []) this.dataFor(parseLanguages(spec));
  }

  /** Where a language set's data is read from (resolved once per set). */
  private dataFor(langs: string[]): LanguageData {
    const key = languageKey(langs);
    let data = this.languageData.get(key);
    if (!data) {
      data = resolveLanguageData(langs, this.tessdataDir);
      this.languageData.set(key, data);
    }
    return data;
  }

  /**
   * Text, lines and words of one image, boxes in its pixel coordinates. Raw gray pixels (a
   * rendered page, `loadImageForOcr`) are the fast path; encoded image bytes are decoded by
   * tesseract.js (EXIF orientation applied).
   */
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

  /** Starts workers for a language set ahead of the first page (up to `count`, default `concurrency`). */
  async warmUp(lang: LanguageSpec = 'eng', count = this.concurrency): Promise<void> {
    if (this.closed) throw new OcrError('engine_closed', 'the OCR engine is closed');
    const langs = parseLanguages(lang);
    const data = this.dataFor(langs);
    const key = languageKey(langs);
    const starts: Promise<void>[] = [];
    const have = this.slots.filter((s) => s.key === key).length;
    for (let i = have; i < Math.min(count, this.concurrency); i += 1) {
      const slot = this.takePlace(key);
      if (!slot) break;
      starts.push(
        this.start(slot, data).then(() => undefined).finally(() => this.release(slot)),
      );
    }
    await Promise.all(starts);
  }

  /**
   * The script of an image's text by tesseract's OSD (`osd.traineddata`, Debian's
   * tesseract-ocr-osd), one image at a time on a worker of its own. Undefined when OSD finds too
   * little text to say.
   */
  async detectScript(image: OcrImage): Promise<ScriptDetection | undefined> {
    if (this.closed) throw new OcrError('engine_closed', 'the OCR engine is closed');
    const input = toTesseractInput(image);
    const run = this.osdQueue.then(async () => {
      this.osd ??= OcrWorker.create(resolveLanguageData(['osd'], this.tessdataDir), WORKER_START_TIMEOUT_MS, 'osd');
      const pending = this.osd;
      try {
        return await (await pending).detect(input, this.pageTimeoutMs);
      } catch (err) {
        // A failed or stopped worker is not reused.
        if (this.osd === pending) this.osd = undefined;
        void pending.then((w) => this.track(w.terminate()), () => undefined);
        throw err;
      }
    });
    this.osdQueue = run.catch(() => undefined);
    return run;
  }

  /** For metrics and tests: workers now (starting or warm), those busy, pages waiting, workers started and stopped for idleness so far. */
  stats(): ReaderStats {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.busy).length,
      queued: this.queue.length,
      started: this.started,
      idleStopped: this.idleStopped,
    };
  }

  /** Stops every worker: queued and running pages reject with `engine_closed`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer.timer);
    this.idleTimer = undefined;
    const closedError = new OcrError('engine_closed', 'the OCR engine was closed');
    for (const job of this.queue.splice(0)) job.reject(closedError);
    for (const slot of [...this.slots]) this.retire(slot);
    if (this.osd) {
      const osd = this.osd;
      this.osd = undefined;
      this.track(osd.then((w) => w.terminate(), () => undefined));
    }
    while (this.stopping.size > 0) await Promise.all([...this.stopping]);
  }

  /** A place for a worker of `key`: a free one, or one taken from an idle worker of another set. */
  private takePlace(key: string): Slot | undefined {
    if (this.slots.length >= this.concurrency) {
      const idleOther = this.slots.find((s) => !s.busy && s.key !== key);
      if (!idleOther) return undefined;
      this.retire(idleOther);
    }
    const slot: Slot = { key, busy: true, idleSince: 0 };
    this.slots.push(slot);
    return slot;
  }

  private dispatch(): void {
    while (!this.closed && this.queue.length > 0) {
      const job = this.queue[0]!;
      const slot = this.slots.find((s) => s.key === job.key && !s.busy && s.worker) ?? this.takePlace(job.key);
      if (!slot) return;
      slot.busy = true;
      this.queue.shift();
      void this.run(slot, job);
    }
  }

  private async start(slot: Slot, data: LanguageData): Promise<OcrWorker> {
    this.started += 1;
    try {
      const worker = await OcrWorker.create(data, WORKER_START_TIMEOUT_MS);
      slot.worker = worker;
      if (this.closed || !this.slots.includes(slot)) {
        // Closed (or replaced) while it started: nobody will use it.
        this.track(worker.terminate());
        throw new OcrError('engine_closed', 'the OCR engine was closed');
      }
      return worker;
    } catch (err) {
      this.retire(slot);
      throw err;
    }
  }

  private async run(slot: Slot, job: Job): Promise<void> {
    try {
      const worker = slot.worker ?? (await this.start(slot, job.data));
      const page = await worker.recognize(job.input, this.pageTimeoutMs, job.settings);
      job.resolve(pageFromTsv(page.tsv));
      if (worker.pages >= this.pagesPerWorker) this.retire(slot);
    } catch (err) {
      job.reject(err);
      // After a failure the worker's state is unknown: start afresh next time.
      this.retire(slot);
    } finally {
      this.release(slot);
    }
  }

  /** A slot's page (or start) is over: the next page may take it, or it starts its idle period. */
  private release(slot: Slot): void {
    slot.busy = false;
    slot.idleSince = performance.now();
    this.dispatch();
    this.watchIdle();
  }

  /** Arms one timer for the next idle worker beyond `warmWorkers` to come due (none when there is none). */
  private watchIdle(): void {
    const due = this.closed ? undefined : nextIdleDeadline(this.idleSlots(), this.slots.length, this.warmWorkers, this.idleWorkerMs);
    if (this.idleTimer && this.idleTimer.due === due) return;
    if (this.idleTimer) clearTimeout(this.idleTimer.timer);
    this.idleTimer = undefined;
    if (due === undefined) return;
    const timer = setTimeout(() => {
      this.idleTimer = undefined;
      this.stopIdle();
    }, Math.max(0, due - performance.now()));
    // The workers keep the process alive while they exist; this timer alone must not.
    timer.unref();
    this.idleTimer = { timer, due };
  }

  private stopIdle(): void {
    for (const slot of idleToStop(this.idleSlots(), this.slots.length, this.warmWorkers, this.idleWorkerMs, performance.now())) {
      this.retire(slot);
      this.idleStopped += 1;
    }
    this.watchIdle();
  }

  /** Warm workers with no page: a starting worker is busy, so it is never among them. */
  private idleSlots(): Slot[] {
    return this.slots.filter((s) => !s.busy && s.worker !== undefined);
  }

  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    if (slot.worker) this.track(slot.worker.terminate());
    slot.worker = undefined;
  }

  private track(stop: Promise<void>): void {
    const tracked = stop.finally(() => this.stopping.delete(tracked));
    this.stopping.add(tracked);
  }
}
