import { z } from 'zod';

/**
 * Job payloads carry references, never document bytes: blobs are named by sha256 in the blob
 * store (DATA_DIR), so Redis holds a few hundred bytes per job whatever the document's size.
 */
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const sourceRef = z.object({
  sha256,
  filename: z.string().max(1_024),
  mediaType: z.string().max(200),
  size: z.number().int().nonnegative(),
});

/** What every payload has: which job record it drives (and its batch, to keep that alive). */
const jobRef = {
  jobId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/),
  tenant: z.string().min(1).max(128),
  batchId: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/).optional(),
  /** Attempt series (1 unless an operator replayed the job); absent means 1. */
  series: z.number().int().positive().optional(),
};

export type JobRefFields = { jobId: string; tenant: string; batchId?: string | undefined; series?: number | undefined };

/** The fields a stage passes on to the next stage unchanged: the job, its batch and its attempt series. */
export function jobRefFields(payload: JobRefFields): JobRefFields {
  return { jobId: payload.jobId, tenant: payload.tenant, batchId: payload.batchId, series: payload.series };
}

export const extractPayload = z.object({ ...jobRef, source: sourceRef }).strict();

export const assemblePayload = z
  .object({
    ...jobRef,
    source: sourceRef,
    /** The extract stage's output (a JSON ParsedDocument without image bytes) in the blob store. */
    extraction: z.object({ sha256 }),
  })
  .strict();

export type SourceRef = z.infer<typeof sourceRef>;
export type ExtractPayload = z.infer<typeof extractPayload>;
export type AssemblePayload = z.infer<typeof assemblePayload>;
