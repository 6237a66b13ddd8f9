import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobRefFields, RENDITION_PART, type RenditionRef } from '@readpack/queues';
import { inSpan, SPAN } from '@readpack/tracing';
import { ConversionError } from '../libreoffice.js';
import { PermanentFailure } from '../failures.js';
import { defineStage } from '../stage.js';

/**
 * The extension LibreOffice needs to pick its import filter (it guesses from the name before the
 * content). The file is always called `document.<ext>`: the client's filename never reaches the
 * command line.
 */
const EXTENSIONS: Record<string, string> = {
  'application/vnd.ms-powerpoint': 'ppt',
  'application/rtf': 'rtf',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/msword': 'doc',
};

/** Media types only LibreOffice reads for us: the extract stage sends them here. */
export const CONVERTED_MEDIA_TYPES: readonly string[] = Object.keys(EXTENSIONS).filter((t) => t !== 'application/msword');

/**
 * convert: the upload → PDF with LibreOffice (one soffice per job, this process's own profile,
 * hard timeout), stored in the blob store, then the document's extract job on that PDF
 * (`<jobId>-extract-pdf`), which takes the normal PDF path (text layer → maybe OCR → assemble).
 *
 * Idempotent like every stage: the PDF's reference is written into this job's data
 * (job.updateData) as soon as it is stored, so a re-delivered job (a crash after storing, a
 * takeover) re-uses the stored PDF instead of converting again, and the extract job id is
 * derived from the job id, so adding it twice adds it once.
 */
export const convertStage = defineStage({
  stage: 'convert',
  // The record's phase is `extract` for the whole of reading the document: conversion is the
  // first half of it for these formats (the phase list is shared by every job and only moves forward).
  phase: 'extract',
  needs: ['libreoffice'],
  failureOwner: 'job',
  async handle(payload, ctx) {
    const { storage, producer, logger, job, libreoffice } = ctx;
    if (!(await storage.blobs.has(payload.source.sha256))) {
      throw new PermanentFailure('source_missing', 'The uploaded file is no longer stored; upload it again.');
    }
    let pdf: RenditionRef | undefined = payload.pdf && (await storage.blobs.has(payload.pdf.sha256)) ? payload.pdf : undefined;
    if (pdf) {
      logger.info('re-using the PDF of an earlier delivery', { pdfSha256: pdf.sha256 });
    } else {
      const extension = EXTENSIONS[payload.source.mediaType];
      if (!extension) throw new PermanentFailure('unsupported_content', `documents of type ${payload.source.mediaType} are not converted`);
      const dir = await mkdtemp(join(tmpdir(), 'readpack-convert-'));
      try {
        const input = join(dir, `document.${extension}`);
        await storage.blobs.copyTo(payload.source.sha256, input);
        const started = performance.now();
        let output: string;
        try {
          output = await inSpan(SPAN.convert, {}, () => libreoffice.toPdf(input, join(dir, 'out')));
        } catch (error) {
          if (error instanceof ConversionError) throw new PermanentFailure(error.code, error.message, { cause: error });
          throw error;
        }
        const ms = Math.round(performance.now() - started);
        const stored = await storage.blobs.putBuffer(await readFile(output));
        pdf = { sha256: stored.sha256, size: stored.size, parser: 'libreoffice', version: libreoffice.version };
        // Recorded before the next step: from here on a re-delivery skips the conversion.
        await job.updateData({ ...payload, pdf });
        logger.info('converted to PDF', { reason: payload.reason, mediaType: payload.source.mediaType, ms, pdfBytes: stored.size, pdfSha256: stored.sha256 });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    await producer.add(
      'extract',
      { ...jobRefFields(payload), source: payload.source, options: payload.options, rendition: pdf, ...(payload.secrets ? { secrets: payload.secrets } : {}) },
      { part: RENDITION_PART, ...(job.opts.priority ? { priority: job.opts.priority } : {}) },
    );
    return { pdf: pdf.sha256 };
  },
});
