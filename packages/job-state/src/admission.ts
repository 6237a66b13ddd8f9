import type { RedisClient } from '@readpack/redis';
import { registerScripts, runScript } from './scripts.js';

export interface AdmissionOptions {
  /** Key prefix shared with the job records (`<prefix>:job:<id>`). */
  prefix: string;
  /** How long an admitted id may go without a record before it stops counting (see scripts/admit.lua). */
  graceMs: number;
  /** Expiry of an idle tenant's set; renewed by every admission. */
  ttlSeconds: number;
}

export type Admission = { admitted: true; activeBefore: number } | { admitted: false; active: number };

/**
 * Jobs per tenant that are queued or processing, enforced in Redis (scripts/admit.lua) so that the
 * limit holds across every API process. The count an admission returns is also the tenant's
 * backlog, which the API turns into queue priorities (fairness between tenants).
 */
export class ActiveJobsGate {
  constructor(
    private readonly redis: RedisClient,
    private readonly options: AdmissionOptions,
  ) {
    registerScripts(redis);
  }

  activeKey(tenant: string): string {
    return `${this.options.prefix}:tenant:${tenant}:active`;
  }

  /** Admits all of `jobIds` for `tenant`, or none of them when that would exceed `limit`. */
  async admit(tenant: string, jobIds: string[], limit: number): Promise<Admission> {
    const { prefix, graceMs, ttlSeconds } = this.options;
    const activeKey = this.activeKey(tenant);
    // The script may read only keys it is given (scripts/admit.lua): the records of the members now.
    const members = await this.redis.zrange(activeKey, 0, -1);
    const recordKeys = members.map((id) => `${prefix}:job:${id}`);
    const [admitted, , count] = await runScript(this.redis, 'admit', [activeKey, ...recordKeys], [`${prefix}:job:`, limit, graceMs, ttlSeconds, ...jobIds]);
    return admitted === 1 ? { admitted: true, activeBefore: Number(count) } : { admitted: false, active: Number(count) };
  }

  /** Gives back admitted ids that never became jobs (an upload that joined a running job, or failed). */
  async release(tenant: string, jobIds: string[]): Promise<void> {
    if (jobIds.length > 0) await this.redis.zrem(this.activeKey(tenant), ...jobIds);
  }
}
