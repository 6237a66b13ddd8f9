import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Config } from '@readpack/config';
import { JobStateStore, type JobRecord } from '@readpack/job-state';
import { bullPrefix, deadLetterQueueName, QUEUES, type QueueName } from '@readpack/queues';
import type { RedisClient } from '@readpack/redis';
import { upload, type StatusBody } from '../harness.js';
import { freshRequest } from '../support/fresh-http.js';

export interface Uploaded {
  name: string;
  jobId: string;
  deduplicated: boolean;
}

export async function uploadOne(base: string, name: string, data: Uint8Array): Promise<Uploaded> {
  const res = await upload(base, [{ name, data }]);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`upload of ${name} answered ${res.status}: ${text}`);
  const body = JSON.parse(text) as { jobId: string; deduplicated: boolean };
  return { name, jobId: body.jobId, deduplicated: body.deduplicated };
}

/**
 * `run` over `items`, `size` at a time. Every call settles before this returns, even when one
 * fails: nothing is left writing into a pipeline that the caller is about to stop and delete.
 */
export async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await settleAll(items.slice(i, i + size).map(run))));
  return results;
}

/** Like Promise.all, but waits for every promise to settle before rejecting with the first failure. */
export async function settleAll<R>(promises: Promise<R>[]): Promise<R[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

/** Status codes answered while polling, with each unexpected answer. */
export interface PollLog {
  counts: Map<number, number>;
  unexpected: string[];
}

/**
 * Polls the status of every job added to it (each request on a new connection, as a client
 * would) until each is terminal, from the moment it is added: clients poll throughout the chaos,
 * not only after it. An answer outside `allowed` is recorded and polling goes on: the caller asserts.
 */
export class StatusWatch {
  readonly finals = new Map<string, StatusBody>();
  readonly polls: PollLog = { counts: new Map(), unexpected: [] };
  private readonly pending = new Set<string>();
  private readonly allowed: Set<number>;
  private readonly loop: Promise<void>;
  private closed = false;
  private abandoned = false;

  constructor(
    private readonly base: string,
    options: { allowed?: number[]; intervalMs?: number } = {},
  ) {
    this.allowed = new Set(options.allowed ?? [200]);
    this.loop = this.run(options.intervalMs ?? 250);
  }

  /** Stops polling at once (a run that failed must not leave the loop running). */
  stop(): void {
    this.abandoned = true;
  }

  add(jobId: string): void {
    if (!this.finals.has(jobId)) this.pending.add(jobId);
  }

  /** Resolves with every job's final status once all are terminal; no job may be added after this. */
  async settled(timeoutMs: number): Promise<{ finals: Map<string, StatusBody>; polls: PollLog }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.abandoned = true;
        reject(new Error(`${this.pending.size} job(s) not terminal after ${timeoutMs} ms: ${[...this.pending].slice(0, 10).join(', ')}`));
      }, timeoutMs);
    });
    this.closed = true;
    try {
      await Promise.race([this.loop, timeout]);
    } finally {
      clearTimeout(timer);
    }
    return { finals: this.finals, polls: this.polls };
  }

  private async run(intervalMs: number): Promise<void> {
    while (!this.abandoned && (!this.closed || this.pending.size > 0)) {
      for (const jobId of [...this.pending]) await this.poll(jobId);
      if (this.abandoned || (this.closed && this.pending.size === 0)) return;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  private async poll(jobId: string): Promise<void> {
    const res = await freshRequest(`${this.base}/api/files/job/${jobId}`).catch((error: unknown) => ({ status: 0, body: String(error) }));
    this.polls.counts.set(res.status, (this.polls.counts.get(res.status) ?? 0) + 1);
    if (!this.allowed.has(res.status)) this.polls.unexpected.push(`${jobId}: ${res.status} ${res.body.slice(0, 200)}`);
    if (res.status !== 200) return;
    const body = JSON.parse(res.body) as StatusBody;
    if (body.status === 'done' || body.status === 'failed') {
      this.finals.set(jobId, body);
      this.pending.delete(jobId);
    }
  }
}

/** Polls every job until all are terminal (see StatusWatch). */
export async function waitAllTerminal(
  base: string,
  jobIds: Iterable<string>,
  options: { timeoutMs: number; allowed?: number[]; intervalMs?: number },
): Promise<{ finals: Map<string, StatusBody>; polls: PollLog }> {
  const watch = new StatusWatch(base, options);
  for (const jobId of jobIds) watch.add(jobId);
  return watch.settled(options.timeoutMs);
}

/** Every job record under the deployment's prefix (SCAN), decoded as the API decodes it. */
export async function allJobRecords(redis: RedisClient, config: Config): Promise<Map<string, JobRecord>> {
  const state = new JobStateStore(redis, { prefix: config.redis.prefix, ttl: config.ttl, leaseMs: 0, actor: 'chaos-test' });
  const records = new Map<string, JobRecord>();
  for await (const ids of state.scanJobIds()) {
    for (const jobId of ids) {
      const record = await state.getJob(jobId);
      if (record) records.set(jobId, record);
    }
  }
  return records;
}

/** The manifest files on disk, by package id. */
export async function packageFiles(dataDir: string): Promise<Map<string, Buffer>> {
  const dir = join(dataDir, 'packages');
  const files = new Map<string, Buffer>();
  for (const name of await readdir(dir)) {
    if (name.endsWith('.json')) files.set(name.slice(0, -'.json'.length), await readFile(join(dir, name)));
  }
  return files;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * A manifest's bytes with the one thing that legitimately differs between two runs of the same
 * document, its job id (also its package id), replaced by a placeholder. 128 random bits: the id
 * cannot occur anywhere else in the manifest by accident.
 */
export function normalizedManifest(bytes: Buffer, jobId: string): string {
  return bytes.toString('utf8').replaceAll(jobId, '<jobId>');
}

export interface DeadLetterEntry {
  queue: string;
  jobId: string;
  code: string;
  state: string;
}

/** Every entry of every stage's dead-letter queue, in whatever state (new, parked, being parked). */
export async function deadLetterEntries(redis: RedisClient, config: Config): Promise<DeadLetterEntry[]> {
  const entries: DeadLetterEntry[] = [];
  for (const stage of Object.keys(QUEUES) as QueueName[]) {
    const queue = new Queue(deadLetterQueueName(stage), { connection: redis, prefix: bullPrefix(config.redis.prefix) });
    try {
      for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const) {
        for (const job of await queue.getJobs([state], 0, -1)) {
          const data = job.data as { payload?: { jobId?: string }; error?: { code?: string } };
          entries.push({ queue: queue.name, jobId: String(data.payload?.jobId), code: String(data.error?.code), state });
        }
      }
    } finally {
      await queue.close();
    }
  }
  return entries;
}

/** Jobs of the stage queues that would still run (nothing may be left once every record is terminal). */
export async function unfinishedQueueJobs(redis: RedisClient, config: Config): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const stage of Object.keys(QUEUES) as QueueName[]) {
    const queue = new Queue(QUEUES[stage].name, { connection: redis, prefix: bullPrefix(config.redis.prefix) });
    try {
      const byState = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized', 'waiting-children');
      for (const [state, n] of Object.entries(byState)) if (n > 0) counts[`${stage}/${state}`] = n;
    } finally {
      await queue.close();
    }
  }
  return counts;
}
