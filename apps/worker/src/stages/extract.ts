import { jobRefFields } from '@readpack/queues';
import type { StageHandler } from '../stage.js';
import type { Extraction } from '../extraction.js';
import { PermanentFailure } from '../failures.js';

/**
 * extract: parse the uploaded document in a parser thread, move its embedded images into the
 * blob store, store the extraction, and hand over to assemble. The assemble job's id is derived
 * from the job id, so a re-delivered extract (at-least-once) adds nothing new.
 */
export const extractStage: StageHandler<'extract'> = {
  stage: 'extract',
  phase: 'extract',
  usesParsePool: true,
  async handle(payload, { storage, producer, state, parsePool, logger }) {
    if (!parsePool) throw new Error('extract needs the parse pool');
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    const parsed = await parsePool.parse({ path: storage.blobs.pathOf(payload.source.sha256), mediaType: payload.source.mediaType });
    const images = [];
    for (const image of parsed.images) {
      const { sha256, size } = await storage.blobs.putBuffer(image.data);
      images.push({ name: image.name, mediaType: image.mediaType, sha256, size });
    }
    const extraction: Extraction = { ...parsed, images };
    const stored = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(extraction)));
    logger.info('extracted', { parser: parsed.origin.parser, pages: parsed.pages?.length, tables: parsed.tables.length, images: images.length, chars: parsed.text.length });
    await state.progress(payload, { done: 1, total: 2 }, 'extract');
    await producer.add('assemble', {
      ...jobRefFields(payload),
      source: payload.source,
      extraction: { sha256: stored.sha256 },
    });
  },
};
