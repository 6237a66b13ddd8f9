import { deadLettered, isJobErrorCode, JobStateStore } from '@readpack/job-state';
import type { OpsContext } from './connection.js';
import { printTable } from './table.js';

/** `readpack ops failures`: failed jobs by code (fail.lua counts every one); user mistakes show here, not in the DLQs. */
export async function failures({ config, connection }: OpsContext): Promise<number> {
  const store = new JobStateStore(connection, { prefix: config.redis.prefix, ttl: { queuedSeconds: 1, processingSeconds: 1, resultSeconds: 1 }, leaseMs: 1, actor: 'ops' });
  const counts = Object.entries(await store.failureCounts()).sort(([, a], [, b]) => b - a);
  printTable([['code', 'failed jobs', 'dead-lettered'], ...counts.map(([code, n]) => [code, String(n), isJobErrorCode(code) && deadLettered(code) ? 'yes' : 'no'])]);
  return 0;
}
