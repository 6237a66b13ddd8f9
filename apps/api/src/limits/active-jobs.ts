import { ActiveJobsGate } from '@readpack/job-state';
import type { RedisClient } from '@readpack/redis';
import { ApiError } from '../http/errors.js';

/** BullMQ's largest priority (lowest urgency); 0 would mean "no priority", which runs before all others. */
export const MAX_PRIORITY = 2_097_151;
/** An admitted id gets this long to become a record before it stops counting (scripts/admit.lua). */
const ADMISSION_GRACE_MS = 60_000;
/** When slots free up depends on other jobs finishing; this is a polite first guess, not a promise. */
const RETRY_AFTER_SECONDS = 10;

/**
 * Fairness between tenants without BullMQ Pro's groups: an extract job's priority is its tenant's
 * backlog when it was admitted, `1 + active jobs` (1 is the most urgent). A tenant with nothing
 * running jumps ahead of a tenant with 200 queued jobs; a flooding tenant only competes with
 * itself. The `index`-th job of one admission (a batch) counts the ones before it.
 */
export function fairPriority(activeBefore: number, index: number): number {
  return Math.min(1 + activeBefore + index, MAX_PRIORITY);
}

/**
 * MAX_ACTIVE_JOBS_PER_TENANT, enforced atomically in Redis for every API process, and the
 * priorities it implies (see fairPriority).
 */
export class TenantAdmission {
  private readonly gate: ActiveJobsGate;
  private readonly limit: number;

  constructor(redis: RedisClient, options: { prefix: string; limit: number; ttlSeconds: number }) {
    this.gate = new ActiveJobsGate(redis, { prefix: options.prefix, graceMs: ADMISSION_GRACE_MS, ttlSeconds: options.ttlSeconds });
    this.limit = options.limit;
  }

  /** Admits every one of `jobIds` or throws 429; returns each job's queue priority. */
  async admit(tenant: string, jobIds: string[]): Promise<number[]> {
    const admission = await this.gate.admit(tenant, jobIds, this.limit);
    if (!admission.admitted) {
      throw new ApiError(
        429,
        'too_many_active_jobs',
        `You have ${admission.active} jobs queued or processing; the limit is ${this.limit}. Retry when some have finished.`,
        { active: admission.active, limit: this.limit, retryAfterSeconds: RETRY_AFTER_SECONDS },
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    return jobIds.map((_, index) => fairPriority(admission.activeBefore, index));
  }

  /**
   * Gives back ids that never became running jobs (joined another job, or the upload failed).
   * Best effort, and never the error a client sees: an id left behind (Redis down at that moment)
   * has no record, so it stops counting after the admission grace anyway.
   */
  async release(tenant: string, jobIds: string[]): Promise<void> {
    await this.gate.release(tenant, jobIds).catch(() => undefined);
  }
}
