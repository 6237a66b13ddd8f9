import { jobRefFields, type FlowChild } from '@readpack/queues';
import { chooseEngine } from '../engine-choice.js';
import type { Extraction } from '../extraction.js';
import { PermanentFailure } from '../failures.js';
import type { StageContext, StageHandler } from '../stage.js';

/**
 * extract: parse the uploaded document in a parser thread (unless it goes to MinerU only), move
 * its embedded images into the blob store, store the extraction, choose the engine, and add the
 * document's assemble job with the children it waits for (a MinerU call). Every id in that flow
 * is derived from the job id, so a re-delivered extract (at-least-once) adds nothing new.
 */
export const extractStage: StageHandler<'extract'> = {
  stage: 'extract',
  phase: 'extract',
  needs: ['parsePool'],
  failureOwner: 'job',
  async handle(payload, ctx) {
    const { storage, producer, state, logger, config } = ctx;
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    const extraction = payload.options.engine === 'mineru' ? undefined : await extractLocally(payload.source.sha256, payload.source.mediaType, ctx);
    const engine = chooseEngine(payload.options, extraction?.document, payload.source.mediaType, config);
    const children: FlowChild[] = [];
    if (engine === 'mineru') {
      children.push({ name: 'mineru', payload: { ...jobRefFields(payload), source: payload.source, options: payload.options } });
    }
    logger.info('extracted', { engine, children: children.length, ...extraction?.summary });
    await state.progress(payload, { done: 1, total: 2 }, 'extract');
    await producer.addAssembleFlow(
      { ...jobRefFields(payload), source: payload.source, options: payload.options, extraction: extraction && { sha256: extraction.sha256 } },
      children,
    );
  },
};

async function extractLocally(sha256: string, mediaType: string, { storage, parsePool, config }: StageContext) {
  if (!parsePool) throw new Error('extract needs the parse pool');
  const parsed = await parsePool.parse({ path: storage.blobs.pathOf(sha256), mediaType }, { maxPages: config.limits.maxPages });
  const images = [];
  for (const image of parsed.images) {
    const { sha256: imageSha, size } = await storage.blobs.putBuffer(image.data);
    images.push({ name: image.name, mediaType: image.mediaType, sha256: imageSha, size });
  }
  const extraction: Extraction = { ...parsed, images };
  const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
  const summary = { parser: parsed.origin.parser, pages: parsed.pages?.length, tables: parsed.tables.length, images: images.length, chars: parsed.text.length };
  return { sha256: stored.sha256, document: parsed, summary };
}
