import { Queue } from 'bullmq';
import { deadLetterQueueName, QUEUES, type QueueName } from '@readpack/queues';
import type { OpsContext } from './connection.js';
import { schedulerRows } from './schedulers.js';
import { printTable } from './table.js';

export type Verdict = 'ok' | 'warn' | 'problem';

export interface Finding {
  check: string;
  verdict: Verdict;
  detail: string;
}

/** Redis settings Readpack relies on (docs: README "Operations", BullMQ's production notes). */
async function redisSettings({ connection }: OpsContext): Promise<Finding[]> {
  const read = async (name: string): Promise<string | undefined> => {
    try {
      const [, value] = (await connection.config('GET', name)) as [string, string] | [];
      return value;
    } catch {
      // Managed Redis often disables CONFIG: the finding below says the setting could not be read.
      return undefined;
    }
  };
  const [aof, policy, listpack] = [await read('appendonly'), await read('maxmemory-policy'), await read('hash-max-listpack-value')];
  const unreadable = (check: string): Finding => ({ check, verdict: 'warn', detail: 'CONFIG GET is not allowed here: check the setting with your Redis provider' });
  return [
    aof === undefined ? unreadable('Redis AOF') : { check: 'Redis AOF', verdict: aof === 'yes' ? 'ok' : 'problem', detail: aof === 'yes' ? 'appendonly yes' : 'appendonly no: a Redis restart loses every job (set appendonly yes, appendfsync everysec)' },
    policy === undefined
      ? unreadable('Redis eviction')
      : { check: 'Redis eviction', verdict: policy === 'noeviction' ? 'ok' : 'problem', detail: policy === 'noeviction' ? 'maxmemory-policy noeviction' : `maxmemory-policy ${policy}: Redis may evict job records and queue keys (set noeviction)` },
    listpack === undefined
      ? unreadable('Redis hash encoding')
      : { check: 'Redis hash encoding', verdict: Number(listpack) >= 1024 ? 'ok' : 'warn', detail: `hash-max-listpack-value ${listpack}${Number(listpack) >= 1024 ? '' : ': job records use the larger hashtable encoding (set 1024)'}` },
  ];
}

async function schedulerFindings(ctx: OpsContext): Promise<Finding[]> {
  const rows = await schedulerRows(ctx);
  const flagged = rows.filter((r) => r.flag);
  return [{ check: 'schedulers', verdict: flagged.length === 0 ? 'ok' : 'problem', detail: flagged.length === 0 ? `${rows.length} registered, none duplicated or missing` : flagged.map((r) => `${r.id}: ${r.flag}`).join('; ') }];
}

/** Per stage: dead letters, waiting jobs without a live consumer, active jobs whose lock lapsed. */
async function queueFindings({ connection, prefix }: OpsContext): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const stage of Object.keys(QUEUES) as QueueName[]) {
    const queue = new Queue(stage, { connection, prefix });
    const dlq = new Queue(deadLetterQueueName(stage), { connection, prefix });
    try {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'waiting-children');
      const consumers = await queue.getWorkersCount();
      const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
      if (waiting > 0 && consumers === 0) findings.push({ check: `${stage} consumers`, verdict: 'problem', detail: `${waiting} jobs waiting and no live ${stage} consumer: start one (${stage.toUpperCase()}_CONSUMERS, docker compose --scale ${stage}=1)` });
      else findings.push({ check: `${stage} consumers`, verdict: 'ok', detail: `${consumers} live, ${waiting} waiting, ${counts.active ?? 0} active` });

      const active = await queue.getActive(0, 999);
      let lapsed = 0;
      for (const job of active) if (!(await connection.exists(queue.toKey(`${job.id}:lock`)))) lapsed += 1;
      if (lapsed > 0) {
        findings.push({
          check: `${stage} stuck jobs`,
          verdict: consumers === 0 ? 'problem' : 'warn',
          detail: `${lapsed} active jobs whose consumer lost its lock${consumers === 0 ? ' and no consumer is there to take them over' : ': a live consumer takes them over at its next stall check'}`,
        });
      }
      const parked = await dlq.getJobCountByTypes('failed');
      if (parked > 0) findings.push({ check: `${stage} dead letters`, verdict: 'warn', detail: `${parked} parked in ${dlq.name}: \`readpack ops dlq list ${stage}\`, replay with \`readpack ops dlq replay ${stage} <jobId>\`` });
    } finally {
      await Promise.all([queue.close(), dlq.close()]);
    }
  }
  return findings;
}

/** `readpack ops doctor`: every check, one line each; exit 1 when any is a problem. */
export async function doctor(ctx: OpsContext): Promise<number> {
  const findings = [...(await redisSettings(ctx)), ...(await schedulerFindings(ctx)), ...(await queueFindings(ctx))];
  printTable([['check', 'verdict', 'detail'], ...findings.map((f) => [f.check, f.verdict.toUpperCase(), f.detail])]);
  return findings.some((f) => f.verdict === 'problem') ? 1 : 0;
}
