import type { Worker as NodeWorker } from 'node:worker_threads';
import Tesseract from 'tesseract.js';
import { OcrError, errorMessage } from './errors.js';
import { languageKey } from './languages.js';
import { DEFAULT_SETTINGS, type PageSettings, type TesseractDetection, type TesseractOutput } from './settings.js';
import type { LanguageData } from './tessdata.js';

/**
 * One warm tesseract.js worker (a worker thread running tesseract's WASM build) for one language
 * set, running one page at a time. It guards against tesseract.js's failure modes: a rejected
 * job is rethrown from its message listener unless an `errorHandler` is set (an uncaught
 * exception in our process), a failed start never settles `createWorker`, and a thread that dies
 * leaves its job pending forever. Here every one of those ends as an `OcrError`.
 */
export class OcrWorker {
  /** Pages recognised so far: the engine recycles a worker after a number of them. */
  pages = 0;
  private failure: OcrError | undefined;
  private rejectCurrent: ((err: OcrError) => void) | undefined;
  private readonly exited: Promise<unknown>;
  private settings: PageSettings = DEFAULT_SETTINGS;

  private constructor(
    readonly key: string,
    private readonly worker: Tesseract.Worker,
    private readonly thread: NodeWorker | undefined,
  ) {
    // Not events.once: it would reject on the 'error' that precedes the exit of a crashed thread.
    this.exited = thread ? new Promise((resolve) => thread.once('exit', resolve)) : Promise.resolve();
    thread?.on('error', (err) => this.fail(new OcrError('worker_failed', `the OCR worker thread crashed: ${errorMessage(err)}`, { cause: err })));
    thread?.on('exit', (code) => this.fail(new OcrError('worker_failed', `the OCR worker thread exited (code ${code})`)));
  }

  /**
   * `osd`: a worker for script detection only. OSD is a legacy-engine feature: it needs
   * tesseract.js's legacy core build and `osd.traineddata` (Debian's tesseract-ocr-osd), loaded
   * as legacy data.
   */
  static async create(data: LanguageData, startTimeoutMs: number, mode: 'lstm' | 'osd' = 'lstm'): Promise<OcrWorker> {
    const key = languageKey(data.langs);
    let settled = false;
    let failStart: (err: OcrError) => void = () => undefined;
    const startFailed = new Promise<never>((_, reject) => {
      failStart = reject;
    });
    const timer = setTimeout(() => failStart(new OcrError('worker_failed', `the OCR worker for ${key} did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    const osd = mode === 'osd';
    const created = Tesseract.createWorker(data.langs.join('+'), osd ? Tesseract.OEM.TESSERACT_ONLY : Tesseract.OEM.LSTM_ONLY, {
      ...(osd ? { legacyCore: true, legacyLang: true } : {}),
      // A local directory: tesseract.js reads `<langPath>/<lang>.traineddata[.gz]` from disk.
      // Without langPath it would download from a CDN; cacheMethod 'none' stops it from
      // writing copies of the models into the working directory.
      langPath: data.langPath,
      gzip: data.gzip,
      cacheMethod: 'none',
      errorHandler: (err: unknown) => {
        // After the start, the failing job's own promise rejects as well; this only stops the rethrow.
        if (!settled) failStart(new OcrError('worker_failed', `the OCR worker for ${key} failed to start: ${errorMessage(err)}`));
      },
    });
    let worker: Tesseract.Worker;
    try {
      worker = await Promise.race([created, startFailed]);
    } catch (err) {
      // Should it start after all (it was only slow), nobody will use it; if it fails, `err` already says so.
      created.then((late) => late.terminate()).catch(() => undefined);
      throw err;
    } finally {
      settled = true;
      clearTimeout(timer);
    }
    const thread = (worker as unknown as { worker?: NodeWorker }).worker;
    const instance = new OcrWorker(key, worker, thread);
    try {
      // What the tesseract CLI does: automatic page segmentation (the API's default is one
      // uniform block, which reads tables row-wise and photos as text), and its diagnostics
      // ("Estimating resolution as …") kept off our stderr.
      await worker.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.AUTO, debug_file: '/dev/null' });
    } catch (err) {
      await instance.terminate(new OcrError('worker_failed', `the OCR worker for ${key} rejected its settings: ${errorMessage(err)}`));
      throw instance.failure;
    }
    return instance;
  }

  /**
   * Recognises one encoded image (any format tesseract.js reads: PNG, JPEG, BMP, PNM, TIFF) with
   * the page's settings (segmentation, dpi hint: the caller's policy, see reading-policy.ts).
   */
  async recognize(image: Buffer, timeoutMs: number, settings: PageSettings = DEFAULT_SETTINGS): Promise<TesseractOutput> {
    if (this.failure) throw this.failure;
    await this.apply(settings);
    return new Promise<TesseractOutput>((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.terminate(new OcrError('timeout', `OCR of one page ran past ${timeoutMs} ms; its worker was stopped`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.rejectCurrent = undefined;
      };
      this.rejectCurrent = (err) => {
        settle();
        reject(err);
      };
      this.worker.recognize(image, {}, { text: false, tsv: true }).then(
        (result) => {
          settle();
          this.pages += 1;
          resolve({ tsv: result.data.tsv ?? '' });
        },
        (err: unknown) => {
          settle();
          reject(new OcrError('recognition_failed', `OCR failed: ${errorMessage(err)}`, { cause: err }));
        },
      );
    });
  }

  /**
   * Script and orientation of an image with tesseract's OSD (legacy engine, `osd.traineddata`):
   * only a worker created by `createOsd` can do it. Undefined when OSD finds too little text.
   */
  async detect(image: Buffer, timeoutMs: number): Promise<TesseractDetection | undefined> {
    if (this.failure) throw this.failure;
    return new Promise<TesseractDetection | undefined>((resolve, reject) => {
      const timer = setTimeout(() => {
        void this.terminate(new OcrError('timeout', `script detection ran past ${timeoutMs} ms; its worker was stopped`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.rejectCurrent = undefined;
      };
      this.rejectCurrent = (err) => {
        settle();
        reject(err);
      };
      this.worker.detect(image).then(
        (result) => {
          settle();
          this.pages += 1;
          const { script, script_confidence: confidence } = result.data;
          resolve(script === null || confidence === null ? undefined : { script, confidence });
        },
        (err: unknown) => {
          settle();
          reject(new OcrError('recognition_failed', `script detection failed: ${errorMessage(err)}`, { cause: err }));
        },
      );
    });
  }

  /** Sets the page's segmentation and dpi hint on the worker when they differ from the last page's. */
  private async apply(settings: PageSettings): Promise<void> {
    if (this.settings.psm === settings.psm && this.settings.dpi === settings.dpi) return;
    try {
      // user_defined_dpi 0 is tesseract's "not set": it estimates the resolution from the text.
      await this.worker.setParameters({ tessedit_pageseg_mode: settings.psm === '6' ? Tesseract.PSM.SINGLE_BLOCK : Tesseract.PSM.AUTO, user_defined_dpi: String(settings.dpi ?? 0) });
    } catch (err) {
      const failure = new OcrError('worker_failed', `the OCR worker for ${this.key} rejected its settings: ${errorMessage(err)}`, { cause: err });
      await this.terminate(failure);
      throw failure;
    }
    this.settings = settings;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  private fail(err: OcrError): void {
    this.failure ??= err;
    this.rejectCurrent?.(this.failure);
  }

  /** Stops the thread; a page in progress rejects with `reason`. Resolves once the thread is gone. */
  async terminate(reason = new OcrError('engine_closed', 'the OCR engine was closed')): Promise<void> {
    this.fail(reason);
    await this.worker.terminate();
    await this.exited;
  }
}
