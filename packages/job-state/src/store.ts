import type { Redis } from 'ioredis';
import { PHASES, phaseRank, type Phase } from './phases.js';
import { queueScript, registerScripts, runScript, type ScriptReply } from './scripts.js';
import {
  JOB_STATUSES,
  isTerminalStatus,
  type BatchFileView,
  type BatchStatus,
  type BatchView,
  type JobError,
  type JobRecord,
  type JobRef,
  type JobStatus,
  type ResultPointer,
  type SourceInfo,
  type StoredJobView,
  type TransitionResult,
} from './types.js';

export interface JobStateOptions {
  /** Key prefix: records live at `<prefix>:job:<id>` and `<prefix>:batch:<id>`. */
  prefix: string;
  ttl: { queuedSeconds: number; processingSeconds: number; resultSeconds: number };
  /** How long a consumer's lease on a record holds without a heartbeat. */
  leaseMs: number;
  /** `host:pid` of this process, written as createdBy/updatedBy. */
  actor: string;
}

export interface NewJob {
  jobId: string;
  tenant: string;
  source: SourceInfo;
  batch?: { batchId: string; index: number };
}

export interface NewBatch {
  batchId: string;
  tenant: string;
  files: { index: number; name: string; jobId: string }[];
}

/** Fields read for a batch member: enough for the aggregate view, not the whole record. */
const MEMBER_FIELDS = ['status', 'phase', 'done', 'total', 'errorCode', 'errorMessage'] as const;

/**
 * Job and batch state shared by every API and consumer process. All writes go through the Lua
 * scripts in ../scripts (one atomic check-and-set each, documented there); reads are plain.
 * Errors from Redis propagate unchanged: the caller decides that an outage means 503.
 */
export class JobStateStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: JobStateOptions,
  ) {
    registerScripts(redis);
  }

  jobKey(jobId: string): string {
    return `${this.options.prefix}:job:${jobId}`;
  }

  batchKey(batchId: string): string {
    return `${this.options.prefix}:batch:${batchId}`;
  }

  dedupKey(identity: string): string {
    return `${this.options.prefix}:dedup:${identity}`;
  }

  /** Creates a queued record; false if a record with that id already exists. */
  async createJob(job: NewJob): Promise<boolean> {
    const [created] = await runScript(this.redis, 'create', [this.jobKey(job.jobId)], this.createArgs(job));
    return created === 1;
  }

  /**
   * Active-only dedup (see scripts/create-deduped.lua): creates `job` unless a job with the same
   * content identity is still queued or processing, in which case that job's id is returned and
   * nothing is created. The new job's id is the BullMQ job id too (the second gate: an add with
   * an existing id is ignored by BullMQ), so a duplicate can neither create a record nor a job.
   */
  async createOrJoin(identity: string, job: NewJob): Promise<{ created: boolean; jobId: string }> {
    const dedupKey = this.dedupKey(identity);
    const newKey = this.jobKey(job.jobId);
    const dedupTtl = this.options.ttl.queuedSeconds + this.options.ttl.processingSeconds;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const seen = (await this.redis.get(dedupKey)) ?? '';
      const [created, outcome, id] = await runScript(
        this.redis,
        'create-deduped',
        [dedupKey, seen ? this.jobKey(seen) : newKey, newKey],
        [this.options.actor, this.options.ttl.queuedSeconds, seen, job.jobId, dedupTtl, ...recordFields(job)],
      );
      if (outcome !== 'retry') return { created: created === 1, jobId: String(id) };
    }
    throw new Error('dedup gate kept changing under contention');
  }

  /** The batch record and one record per file, in one MULTI: a client never sees half a batch. */
  async createBatch(batch: NewBatch, jobs: NewJob[]): Promise<void> {
    const multi = this.redis.multi();
    const meta = JSON.stringify({ tenant: batch.tenant, createdAt: new Date().toISOString(), files: batch.files });
    multi.set(this.batchKey(batch.batchId), meta, 'EX', this.options.ttl.queuedSeconds);
    for (const job of jobs) {
      queueScript(multi, 'create', [this.jobKey(job.jobId), this.batchKey(batch.batchId)], this.createArgs(job));
    }
    const replies = await multi.exec();
    const failure = replies?.find(([error]) => error !== null)?.[0];
    if (!replies || failure) throw failure ?? new Error('batch creation aborted');
  }

  async getJob(jobId: string): Promise<JobRecord | null> {
    const fields = await this.redis.hgetall(this.jobKey(jobId));
    return decodeRecord(jobId, fields);
  }

  /**
   * The status document as stored, with the record's tenant for the ownership check: one HMGET,
   * no decoding. Null when there is no record (absent or expired). Every script that writes a
   * record writes its document in the same atomic step, so the two come and go together.
   */
  async getJobView(jobId: string): Promise<StoredJobView | null> {
    const [tenant, json] = await this.redis.hmget(this.jobKey(jobId), 'tenant', 'view');
    return typeof tenant === 'string' && typeof json === 'string' ? { tenant, json } : null;
  }

  async getBatch(batchId: string): Promise<BatchView | null> {
    const raw = await this.redis.get(this.batchKey(batchId));
    if (raw === null) return null;
    const meta = JSON.parse(raw) as { tenant: string; createdAt: string; files: NewBatch['files'] };
    const pipeline = this.redis.pipeline();
    for (const file of meta.files) pipeline.hmget(this.jobKey(file.jobId), ...MEMBER_FIELDS);
    const replies = (await pipeline.exec()) ?? [];
    const files = meta.files.map((file, i): BatchFileView => {
      const [error, values] = replies[i] ?? [new Error('missing reply'), null];
      if (error) throw error;
      return memberView(file, values as (string | null)[]);
    });
    return aggregate(batchId, meta.tenant, meta.createdAt, files);
  }

  async start(ref: JobRef, phase: Phase, series = 1): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return toResult(await runScript(this.redis, 'start', this.keys(ref), [actor, phase, phaseRank(phase), leaseMs, ttl.processingSeconds, series]));
  }

  async progress(ref: JobRef, progress: { done: number; total: number }, phase?: Phase): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return toResult(
      await runScript(this.redis, 'progress', this.keys(ref), [
        actor,
        progress.done,
        progress.total,
        phase ?? '',
        phase ? phaseRank(phase) : 0,
        leaseMs,
        ttl.processingSeconds,
      ]),
    );
  }

  /** Counts one finished page of a fanned-out document (idempotent per page). */
  async pageDone(ref: JobRef, pageIndex: number): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return toResult(await runScript(this.redis, 'page-done', this.keys(ref), [actor, pageIndex, leaseMs, ttl.processingSeconds]));
  }

  /** Stores stage facts that must survive a takeover (`ext.*` fields; dropped when the job ends). */
  async annotate(ref: JobRef, fields: Record<string, string>): Promise<TransitionResult> {
    const args = Object.entries(fields).flatMap(([k, v]) => [`ext.${k}`, v]);
    return toResult(await runScript(this.redis, 'annotate', [this.jobKey(ref.jobId)], args));
  }

  /** The `ext.*` annotations of a record (empty when none, or when the record is gone). */
  async annotations(jobId: string): Promise<Record<string, string>> {
    const fields = await this.redis.hgetall(this.jobKey(jobId));
    return Object.fromEntries(Object.entries(fields).filter(([k]) => k.startsWith('ext.')).map(([k, v]) => [k.slice(4), v]));
  }

  async heartbeat(ref: JobRef): Promise<TransitionResult> {
    const { ttl, leaseMs } = this.options;
    return toResult(await runScript(this.redis, 'heartbeat', this.keys(ref), [leaseMs, ttl.processingSeconds]));
  }

  async complete(ref: JobRef, result: ResultPointer): Promise<TransitionResult> {
    const { ttl, actor } = this.options;
    const pointer = JSON.stringify({ packageId: result.packageId, size: result.size, sha256: result.sha256 });
    return toResult(
      await runScript(this.redis, 'complete', this.keys(ref), [actor, pointer, 'view_ready', phaseRank('view_ready'), ttl.resultSeconds]),
    );
  }

  /** Operator replay of a failed job: back to `queued` in a new attempt series (scripts/replay.lua). */
  async replay(ref: JobRef): Promise<TransitionResult & { series: number }> {
    const [applied, status, series] = await runScript(this.redis, 'replay', this.keys(ref), [this.options.actor, this.options.ttl.queuedSeconds]);
    return { applied: applied === 1, status: status as TransitionResult['status'], series: Number(series ?? 0) };
  }

  /** Job ids with a record, a page at a time (SCAN: never blocks Redis). For maintenance only. */
  async *scanJobIds(count = 500): AsyncGenerator<string[]> {
    const match = `${this.options.prefix}:job:*`;
    const offset = match.length - 1;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys.map((k) => k.slice(offset));
    } while (cursor !== '0');
  }

  async fail(ref: JobRef, error: JobError): Promise<TransitionResult> {
    const { ttl, actor } = this.options;
    return toResult(await runScript(this.redis, 'fail', this.keys(ref), [actor, error.code, error.message.slice(0, 2_000), ttl.resultSeconds]));
  }

  private keys(ref: JobRef): string[] {
    return ref.batchId ? [this.jobKey(ref.jobId), this.batchKey(ref.batchId)] : [this.jobKey(ref.jobId)];
  }

  private createArgs(job: NewJob): (string | number)[] {
    return [this.options.actor, this.options.ttl.queuedSeconds, ...recordFields(job)];
  }
}

function recordFields(job: NewJob): (string | number)[] {
  const { tenant, source } = job;
  const fields: (string | number)[] = ['tenant', tenant, 'filename', source.filename, 'mediaType', source.mediaType, 'size', source.size, 'sha256', source.sha256];
  if (source.originalFilename !== undefined && source.originalFilename !== source.filename) fields.push('originalFilename', source.originalFilename);
  if (job.batch) fields.push('batchId', job.batch.batchId, 'batchIndex', job.batch.index);
  return fields;
}

function toResult([applied, status]: ScriptReply): TransitionResult {
  return { applied: applied === 1, status: status as TransitionResult['status'] };
}

const iso = (ms: string | undefined) => new Date(Number(ms ?? 0)).toISOString();

function isStatus(value: string | undefined): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value ?? '');
}

function isPhase(value: string | undefined): value is Phase {
  return (PHASES as readonly string[]).includes(value ?? '');
}

export function decodeRecord(jobId: string, f: Record<string, string>): JobRecord | null {
  if (!isStatus(f.status)) return null;
  const record: JobRecord = {
    jobId,
    tenant: f.tenant ?? '',
    status: f.status,
    phase: isPhase(f.phase) ? f.phase : 'queued',
    progress: { done: Number(f.done ?? 0), total: Number(f.total ?? 0) },
    source: { filename: f.filename ?? '', mediaType: f.mediaType ?? '', size: Number(f.size ?? 0), sha256: f.sha256 ?? '' },
    createdAt: iso(f.createdAt),
    updatedAt: iso(f.updatedAt),
    createdBy: f.createdBy ?? '',
    updatedBy: f.updatedBy ?? '',
    series: Number(f.series ?? 1),
  };
  if (f.originalFilename !== undefined) record.source.originalFilename = f.originalFilename;
  if (f.errorCode) record.error = { code: f.errorCode, message: f.errorMessage ?? '' };
  if (f.result) record.result = JSON.parse(f.result) as ResultPointer;
  if (f.batchId) record.batch = { batchId: f.batchId, index: Number(f.batchIndex ?? 0) };
  if (f.leaseUntil) record.leaseUntil = iso(f.leaseUntil);
  if (f.history) {
    const history = JSON.parse(f.history) as { series: number; code?: string; message?: string; phase?: string; failedAt: number }[];
    record.history = history.map((h) => ({ series: h.series, code: h.code ?? '', message: h.message ?? '', phase: h.phase ?? '', failedAt: iso(String(h.failedAt)) }));
  }
  return record;
}

function memberView(file: NewBatch['files'][number], values: (string | null)[]): BatchFileView {
  const [status, phase, done, total, errorCode, errorMessage] = values;
  const base = { index: file.index, name: file.name, jobId: file.jobId };
  if (!isStatus(status ?? undefined)) return { ...base, status: 'expired' };
  const view: BatchFileView = {
    ...base,
    status: status as JobStatus,
    phase: isPhase(phase ?? undefined) ? (phase as Phase) : 'queued',
    progress: { done: Number(done ?? 0), total: Number(total ?? 0) },
  };
  if (errorCode) view.error = { code: errorCode, message: errorMessage ?? '' };
  return view;
}

/**
 * A batch's status is derived at read time from its members' own records, so concurrent member
 * completions never race on a shared counter: queued (all queued), processing (any not yet
 * terminal), done (all done), failed (all failed or expired), partial (terminal, mixed).
 */
function aggregate(batchId: string, tenant: string, createdAt: string, files: BatchFileView[]): BatchView {
  const completed = files.filter((f) => f.status === 'done').length;
  const failed = files.filter((f) => f.status === 'failed').length;
  const settled = files.every((f) => f.status === 'expired' || isTerminalStatus(f.status as JobStatus));
  let status: BatchStatus;
  if (!settled) status = files.every((f) => f.status === 'queued') ? 'queued' : 'processing';
  else if (completed === files.length) status = 'done';
  else if (completed === 0) status = 'failed';
  else status = 'partial';
  return { batchId, tenant, status, total: files.length, completed, failed, createdAt, files };
}
