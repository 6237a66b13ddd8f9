import { STAGES, type Stage } from '@readpack/config';
import type { StageHandler } from '../stage.js';
import { assembleStage } from './assemble.js';
import { convertStage } from './convert.js';
import { extractStage } from './extract.js';
import { mineruStage } from './mineru.js';
import { ocrStage } from './ocr.js';
import { renderStage } from './render.js';

/** Exactly one handler per stage: a missing one is a compile error here and a boot error below. */
export const HANDLERS: { [S in Stage]: StageHandler<S> } = {
  extract: extractStage,
  convert: convertStage,
  render: renderStage,
  ocr: ocrStage,
  mineru: mineruStage,
  assemble: assembleStage,
};

export function handlerFor<S extends Stage>(stage: S): StageHandler<S> {
  const handler = HANDLERS[stage];
  if (!handler || handler.stage !== stage) throw new Error(`no handler registered for stage ${stage}`);
  return handler;
}

export function assertAllStagesHandled(): void {
  for (const stage of STAGES) handlerFor(stage);
}
