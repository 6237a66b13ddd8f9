import { Worker } from 'bullmq';
import { isMinerUError, mapMinerUResult, runTask, type MappedMinerUDocument } from '@readpack/mineru-client';
import { PermanentFailure, TransientFailure } from '../failures.js';
import { defineStage } from '../stage.js';

/** What the mineru child hands its parent: where the mapped result is stored (a ChildFailed instead when it failed for good). */
export interface MineruChildResult {
  ok: true;
  kind: 'mineru';
  resultSha256: string;
  version: string;
}

/** A mapped MinerU document as stored in the blob store: images moved out, named by hash. */
export interface StoredMineruDocument extends Omit<MappedMinerUDocument, 'images'> {
  version: string;
  images: { name: string; mediaType: string; sha256: string; size: number }[];
}

/**
 * mineru: sends the document to MinerU and stores the mapped result for assemble.
 *
 * Idempotent across consumer deaths: the MinerU task id is written to the job record
 * (`ext.mineruTaskId`) before the first poll, so a consumer that takes the job over resumes that
 * task instead of submitting a second copy (only a death between MinerU's 202 and that write — a
 * few milliseconds — can cause one resubmission). The budget counts from the first submission, across
 * attempts and takeovers. 429/503 back off the whole queue without burning an attempt; 5xx,
 * timeouts and an unreachable server are retried by BullMQ; a 400 fails at once.
 */
export const mineruStage = defineStage({
  stage: 'mineru',
  phase: 'mineru',
  needs: ['mineru'],
  failureOwner: 'parent',
  workerOptions: (config) => ({ limiter: { max: config.mineru.rate.max, duration: config.mineru.rate.windowMs } }),
  configureQueue: async (queue, config) => {
    await queue.setGlobalConcurrency(config.mineru.maxConcurrency);
  },
  async handle(payload, { mineru, state, storage, config, worker, logger, job }) {
    if (!mineru) throw new PermanentFailure('mineru_unavailable', 'MinerU is not configured (MINERU_URL).');
    const ref = { jobId: payload.jobId, batchId: payload.batchId };
    const notes = await state.annotations(payload.jobId);
    // Redis time: the budget spans consumers (a takeover resumes the task), whose clocks may differ.
    const now = await state.now();
    const firstSubmittedAt = Number(notes.mineruSubmittedAt ?? now);
    const budgetMs = config.mineru.budgetMs - (now - firstSubmittedAt);
    if (budgetMs <= 0) throw new PermanentFailure('mineru_timeout', `MinerU did not finish within MINERU_BUDGET_MS (${config.mineru.budgetMs} ms).`);
    try {
      const outcome = await runTask(mineru, {
        file: { name: payload.source.filename, data: await storage.blobs.readBuffer(payload.source.sha256) },
        options: { backend: config.mineru.backend, langList: [mineruLang(payload.options.ocrLang)] },
        existingTaskId: notes.mineruTaskId,
        onSubmitted: async (taskId) => {
          await state.annotate(ref, { mineruTaskId: taskId, mineruSubmittedAt: String(firstSubmittedAt) });
          logger.info('submitted to MinerU', { mineruTaskId: taskId, resumed: false });
        },
        onStatus: async () => {
          await job.updateProgress({ at: Date.now() });
        },
        budgetMs,
        pollIntervalMs: config.mineru.pollIntervalMs,
        maxResubmits: 2,
      });
      if (notes.mineruTaskId && outcome.submissions === 0) logger.info('resumed the MinerU task of an earlier attempt', { mineruTaskId: outcome.taskId });
      const mapped = mapMinerUResult(outcome.result);
      const images = [];
      for (const image of mapped.images) images.push({ name: image.name, mediaType: image.mediaType, ...(await storage.blobs.putBuffer(image.data)) });
      const stored: StoredMineruDocument = { ...mapped, version: outcome.result.version, images };
      const blob = await storage.blobs.putBuffer(Buffer.from(JSON.stringify(stored)));
      const result: MineruChildResult = { ok: true, kind: 'mineru', resultSha256: blob.sha256, version: outcome.result.version };
      return result;
    } catch (error) {
      if (!isMinerUError(error)) throw error;
      if (error.kind === 'rate_limited') {
        // Back off the whole queue (every consumer), without spending this job's attempts.
        await worker.rateLimit(Math.max(error.retryAfterMs ?? 10_000, 500));
        throw Worker.RateLimitError();
      }
      if (error.kind === 'bad_request') throw new PermanentFailure('mineru_rejected', `MinerU refused the document: ${error.message}`);
      if (error.kind === 'task_failed') throw new PermanentFailure('mineru_failed', `MinerU failed to parse the document: ${error.message}`);
      if (error.budgetExhausted) throw new PermanentFailure('mineru_timeout', error.message);
      throw new TransientFailure('mineru_unavailable', `MinerU is unavailable: ${error.message}`, { cause: error });
    }
  },
});

/** MinerU's OCR language names differ from tesseract's; the first language decides. */
function mineruLang(ocrLang: string): string {
  // `auto`: MinerU's default English model, as before languages were chosen automatically.
  const first = ocrLang === 'auto' ? 'eng' : ocrLang.split('+')[0];
  return first === 'chi_sim' || first === 'chi_tra' ? 'ch' : first === 'eng' ? 'en' : (first ?? 'en');
}
