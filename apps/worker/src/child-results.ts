import type { JobErrorCode } from '@readpack/job-state';
import type { QueueName } from '@readpack/queues';

/**
 * What a child stage of a document's flow (render, ocr, mineru) returns to its parent: its result
 * (`ok: true`, stage-specific) or, when it failed for good, a typed failure. A child never ends
 * in BullMQ's `failed` state for a failure the runner saw: the runner completes it with a
 * ChildFailed value, so the parent reads every outcome, success or not, from
 * `job.getChildrenValues()` — never from BullMQ's key layout or an error message.
 */
export interface ChildFailed {
  ok: false;
  stage: QueueName;
  code: JobErrorCode;
  message: string;
  /** For page children (render, ocr): the 0-based page. */
  page?: number;
}

export type ChildOutcome<Result> = (Result & { ok: true }) | ChildFailed;

/** The children's values, each one what its stage returned (the keys are BullMQ's and are not read). */
export async function childValues<Value>(job: { getChildrenValues(): Promise<Record<string, unknown>> }): Promise<Value[]> {
  return Object.values((await job.getChildrenValues()) ?? {}) as Value[];
}
