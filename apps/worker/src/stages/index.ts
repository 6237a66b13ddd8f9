import { STAGES, type Stage } from '@readpack/config';
import { importSerially } from '../lazy-import.js';
import type { StageHandler, StageNeed } from '../stage.js';

/**
 * A stage's handler, whatever services it declares. (Handler methods are declared as methods, so
 * a handler of fewer services is one of these; the runner builds each context from the handler's
 * own `needs` list, services.ts, which is what keeps the two in step.)
 */
export type AnyStageHandler<S extends Stage> = StageHandler<S, StageNeed>;

/**
 * Exactly one handler per stage: a missing one is a compile error here and a boot error below.
 * Loaded on demand, so a consumer imports its own stage's module (and its libraries) only: an
 * extract consumer never loads tesseract.js, an OCR consumer never loads the parsers.
 */
export const HANDLERS: { [S in Stage]: () => Promise<AnyStageHandler<S>> } = {
  extract: async () => (await import('./extract.js')).extractStage,
  convert: async () => (await import('./convert.js')).convertStage,
  render: async () => (await import('./render.js')).renderStage,
  ocr: async () => (await import('./ocr.js')).ocrStage,
  mineru: async () => (await import('./mineru.js')).mineruStage,
  assemble: async () => (await import('./assemble.js')).assembleStage,
};

export async function handlerFor<S extends Stage>(stage: S): Promise<AnyStageHandler<S>> {
  const load = HANDLERS[stage] as (() => Promise<AnyStageHandler<S>>) | undefined;
  const handler = load ? await importSerially(load) : undefined;
  if (!handler || handler.stage !== stage) throw new Error(`no handler registered for stage ${stage}`);
  return handler;
}

/** The registry covers every stage (checked without loading any handler). */
export function assertAllStagesHandled(): void {
  for (const stage of STAGES) if (!(stage in HANDLERS)) throw new Error(`no handler registered for stage ${stage}`);
}
