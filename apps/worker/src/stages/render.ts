import { ATTR, inSpan, SPAN } from '@readpack/tracing';
import { PermanentFailure } from '../failures.js';
import type { RenderedPageRefs } from '../render-task.js';
import { pdfPassword } from '../secrets.js';
import type { ChildOutcome } from '../child-results.js';
import { defineStage } from '../stage.js';

const passwordField = (password: string | undefined) => (password === undefined ? {} : { password });

/**
 * render: one page of a scanned PDF (or the uploaded image) → pixels for OCR plus the page image
 * and preview assets, in a render thread. Its return value (blob references, never pixels) is
 * read by its parent, the page's OCR job (as a ChildOutcome: the runner returns a typed failure instead).
 */
export type RenderChildValue = ChildOutcome<{ refs: RenderedPageRefs }>;

export const renderStage = defineStage({
  stage: 'render',
  phase: 'ocr',
  needs: ['renderPool', 'secrets'],
  failureOwner: 'parent',
  async handle(payload, { renderPool, storage, config, secrets }): Promise<RenderChildValue> {
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    const refs = await inSpan(SPAN.renderPage, { attributes: { [ATTR.page]: payload.page } }, () =>
      storage.blobs.withLocalFile(payload.source.sha256, (path) => renderPool.render({
        blobs: storage.blobs.location,
        path,
        kind: payload.kind,
        page: payload.page,
        dpi: config.ocr.renderDpi,
        maxPixels: config.limits.maxImagePixels,
        ...passwordField(pdfPassword(secrets, payload.secrets?.password, payload.jobId)),
      })),
    );
    return { ok: true, refs };
  },
});
