import { resolve } from 'node:path';
import type { Config, Stage } from '@readpack/config';
import { importSerially } from './lazy-import.js';
import type { NeedTypes, StageNeed } from './stage.js';

/**
 * Creates the services a stage declares (StageHandler.needs), each from a dynamic import: the
 * OCR engine (tesseract.js), the parser and render pools (pdfjs, the parsers) and the MinerU
 * client are loaded only by the consumers whose stage uses them.
 */
export async function createServices<N extends StageNeed>(
  needs: readonly N[],
  stage: Stage,
  config: Config,
  onOrphan: (message: string, meta: Record<string, unknown>) => void,
): Promise<Pick<NeedTypes, N>> {
  const concurrency = config.stages[stage].concurrency;
  const threads = { threads: concurrency, maxHeapMb: config.limits.parseMaxHeapMb, timeoutMs: config.limits.parseTimeoutMs };
  const factories: { [K in StageNeed]: () => Promise<NeedTypes[K]> } = {
    parsePool: async () => new (await import('./parse-pool.js')).ParsePool({ ...threads, slicesAtOnce: config.limits.pdfSlices.atOnce }),
    renderPool: async () => new (await import('./render-pool.js')).RenderPool(threads),
    // Fails at boot when the default language's data is missing: better than failing every page.
    ocr: async () => {
      const { createOcrReader } = await import('@readpack/ocr');
      // `auto` picks languages per page; eng is what every page may fall back to.
      const languages = [config.ocr.defaultLang === 'auto' ? 'eng' : config.ocr.defaultLang];
      // As many workers as the consumer takes pages (runner.ts gives BullMQ the same concurrency),
      // all but the warm ones stopped when idle: every core in a burst, one worker's memory at rest.
      return createOcrReader(config.ocr.engine, {
        tessdataDir: config.ocr.tessdataDir,
        concurrency,
        warmWorkers: config.ocr.warmWorkers,
        idleWorkerMs: config.ocr.workerIdleMs,
        languages,
      });
    },
    mineru: async () => {
      const { MinerUClient } = await import('@readpack/mineru-client');
      return config.mineru.url ? new MinerUClient({ baseUrl: config.mineru.url, requestTimeoutMs: config.mineru.requestTimeoutMs }) : undefined;
    },
    secrets: async () => (await import('@readpack/secrets')).openSecretBox(resolve(config.dataDir)),
    // Fails at boot when soffice is missing or broken: a consumer that could only fail every job
    // must not announce conversion as available.
    libreoffice: async () => {
      const { LibreOffice, reapOrphans } = await import('./libreoffice.js');
      await reapOrphans(onOrphan);
      return LibreOffice.open(config.convert.sofficePath, config.convert.timeoutMs);
    },
  };
  const services: Partial<NeedTypes> = {};
  for (const need of needs) Object.assign(services, { [need]: await importSerially(factories[need]) });
  return services as Pick<NeedTypes, N>;
}

/** Releases what createServices made (pools, OCR workers); the others hold nothing. */
export async function closeServices(services: Partial<NeedTypes>): Promise<void> {
  await Promise.all([services.parsePool?.close(), services.renderPool?.close(), services.ocr?.close(), services.libreoffice?.close()]);
}
