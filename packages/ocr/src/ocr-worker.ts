import type { Worker as NodeWorker } from 'node:worker_threads';
import Tesseract from 'tesseract.js';
import { OcrError, errorMessage } from './errors.js';
import { languageKey } from './languages.js';
import type { TesseractOutput } from './page-result.js';
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

  static async create(data: LanguageData, startTimeoutMs: number): Promise<OcrWorker> {
    const key = languageKey(data.langs);
    let settled = false;
    let failStart: (err: OcrError) => void = () => undefined;
    const startFailed = new Promise<never>((_, reject) => {
      failStart = reject;
    });
    const timer = setTimeout(() => failStart(new OcrError('worker_failed', `the OCR worker for ${key} did not start within ${startTimeoutMs} ms`)), startTimeoutMs);
    const created = Tesseract.createWorker(data.langs.join('+'), Tesseract.OEM.LSTM_ONLY, {
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
   * Recognises one encoded image (any format tesseract.js reads: PNG, JPEG, BMP, PNM, TIFF).
   * The page's dpi is deliberately not passed: with `user_defined_dpi` set, tesseract (native
   * and WASM alike) dropped characters on the corpus scans (CER 4.3% → 8.8% on a MEDRPT page);
   * estimating the resolution from the text size did better everywhere we measured.
   */
  recognize(image: Buffer, timeoutMs: number): Promise<TesseractOutput> {
    if (this.failure) return Promise.reject(this.failure);
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
      this.worker.recognize(image, {}, { text: true, tsv: true }).then(
        (result) => {
          settle();
          this.pages += 1;
          resolve(result.data);
        },
        (err: unknown) => {
          settle();
          reject(new OcrError('recognition_failed', `OCR failed: ${errorMessage(err)}`, { cause: err }));
        },
      );
    });
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
