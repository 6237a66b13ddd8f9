import { scanKeys, type RedisClient } from '@readpack/redis';
import type { JobErrorCode } from './errors.js';
import { PHASES, phaseRank, type Phase } from './phases.js';
import { queueScript, registerScripts, runScript, runScriptRaw, type ScriptReply } from './scripts.js';
import {
  JOB_STATUSES,
  isTerminalStatus,
  type BatchFileView,
  type BatchStatus,
  type BatchView,
  type ExpiredLease,
  type Lease,
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
  /**
   * How long a queued record may wait before the sweeper asks whether a queue holds its job (the
   * API writes the record before it enqueues). Default 5 minutes.
   */
  queuedGraceMs?: number;
  /**
   * Called after this store ended a job (complete or fail applied), and by a consumer that finds
   * a job already ended (see notifyTerminal): the webhook layer enqueues its delivery here. An
   * error propagates, so the caller's job is retried and the notice given again; the receiver
   * side is idempotent (one delivery id per job, series and status).
   */
  onTerminal?: (notice: TerminalNotice) => Promise<void>;
}

/** A terminal job as the webhook layer sees it. */
export interface TerminalNotice {
  jobId: string;
  tenant: string;
  series: number;
  status: string;
  callbackUrl: string | undefined;
  /** The job's status document at the end (JobView JSON). */
  view: string;
}

/** Default of JobStateOptions.queuedGraceMs. */
export const QUEUED_GRACE_MS = 5 * 60_000;

/**
 * Thrown by a LeasedJobState write that the fence refused: this consumer's lease was taken over
 * (or an operator replayed the job). The work is someone else's now; the handler must stop and
 * the runner records nothing.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly reason: 'fenced' | 'stale',
    readonly lease: Lease,
  ) {
    super(`lease of ${lease.holder} (start ${lease.epoch}, series ${lease.series}) is no longer ours: ${reason}`);
  }
}

export interface NewJob {
  jobId: string;
  tenant: string;
  source: SourceInfo;
  batch?: { batchId: string; index: number };
  /** Where the terminal event is POSTed (webhooks); checked by the API before it gets here. */
  callbackUrl?: string | undefined;
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
    private readonly redis: RedisClient,
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

  /**
   * The job's event stream (scripts/prelude.lua, Event streams): one entry per status document.
   * Not under `:job:` — `<prefix>:job:*` must match records only (scanJobIds, the janitor).
   */
  jobEventsKey(jobId: string): string {
    return `${this.options.prefix}:job-events:${jobId}`;
  }

  /** The batch's event stream: every member's status documents, in the order they changed. */
  batchEventsKey(batchId: string): string {
    return `${this.options.prefix}:batch-events:${batchId}`;
  }

  dedupKey(identity: string): string {
    return `${this.options.prefix}:dedup:${identity}`;
  }

  /** The live-lease index (scripts/prelude.lua, Leases): expiry-scored `<jobId>|<holder>` members. */
  leaseIndexKey(): string {
    return `${this.options.prefix}:leases`;
  }

  private get graceMs(): number {
    return this.options.queuedGraceMs ?? QUEUED_GRACE_MS;
  }

  /** Creates a queued record; false if a record with that id already exists. */
  async createJob(job: NewJob): Promise<boolean> {
    const [created] = await runScript(this.redis, 'create', this.keys({ jobId: job.jobId }), this.createArgs(job));
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
        [dedupKey, seen ? this.jobKey(seen) : newKey, newKey, this.leaseIndexKey(), this.jobEventsKey(job.jobId)],
        [this.options.actor, this.options.ttl.queuedSeconds, seen, job.jobId, dedupTtl, this.graceMs, ...recordFields(job)],
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
      queueScript(multi, 'create', this.keys({ jobId: job.jobId, batchId: batch.batchId }), this.createArgs(job));
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

  /** A consumer starts (or takes over) work on the job for `lease.holder` (scripts/start.lua). */
  async start(ref: JobRef, phase: Phase, lease: Lease): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return this.transition('start', ref, lease, [actor, phase, phaseRank(phase), leaseMs, ttl.processingSeconds]);
  }

  async progress(ref: JobRef, lease: Lease, progress: { done: number; total: number }, phase?: Phase): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return this.transition('progress', ref, lease, [actor, progress.done, progress.total, phase ?? '', phase ? phaseRank(phase) : 0, leaseMs, ttl.processingSeconds]);
  }

  /** Counts one finished page of a fanned-out document (idempotent per page). */
  async pageDone(ref: JobRef, lease: Lease, pageIndex: number): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return this.transition('page-done', ref, lease, [actor, pageIndex, leaseMs, ttl.processingSeconds]);
  }

  /** Counts `count` finished pages from `first` on (a PDF slice), each page once however often it is counted. */
  async pagesDone(ref: JobRef, lease: Lease, first: number, count: number): Promise<TransitionResult> {
    const { ttl, leaseMs, actor } = this.options;
    return this.transition('page-done', ref, lease, [actor, first, leaseMs, ttl.processingSeconds, count]);
  }

  async heartbeat(ref: JobRef, lease: Lease): Promise<TransitionResult> {
    const { ttl, leaseMs } = this.options;
    return this.transition('heartbeat', ref, lease, [leaseMs, ttl.processingSeconds]);
  }

  /** The holder's stage job is over: its lease leaves the live-lease index (scripts/release.lua). */
  async release(ref: JobRef, lease: Lease): Promise<TransitionResult> {
    return toResult(await runScript(this.redis, 'release', [this.jobKey(ref.jobId), this.leaseIndexKey()], [...fenceArgs(lease), this.graceMs]));
  }

  async complete(ref: JobRef, lease: Lease, result: ResultPointer): Promise<TransitionResult> {
    const { ttl, actor } = this.options;
    const pointer = JSON.stringify({ packageId: result.packageId, size: result.size, sha256: result.sha256 });
    const reply = await runScriptRaw<[number, string, string?, string?, string?, string?]>(this.redis, 'complete', this.keys(ref), [
      ...fenceArgs(lease),
      actor,
      pointer,
      'view_ready',
      phaseRank('view_ready'),
      ttl.resultSeconds,
    ]);
    const outcome = toResult([reply[0], reply[1]]);
    // The script read the notice's fields as it ended the job (scripts/complete.lua).
    const [, , tenant, series, callbackUrl, view] = reply;
    if (outcome.applied && this.options.onTerminal && tenant && view) {
      await this.options.onTerminal({ jobId: ref.jobId, tenant, status: 'done', series: Number(series ?? 1), callbackUrl: callbackUrl || undefined, view });
    }
    return outcome;
  }

  /**
   * Gives onTerminal the notice of a job that has ended (nothing when it has not, or is gone).
   * Called after every terminal transition this store applies, and by a consumer that finds its
   * job already ended, so that an end whose notice was lost (the process died in between) is
   * notified on the redelivery.
   */
  async notifyTerminal(jobId: string): Promise<void> {
    if (!this.options.onTerminal) return;
    const [tenant, status, series, callbackUrl, view] = await this.redis.hmget(this.jobKey(jobId), 'tenant', 'status', 'series', 'callbackUrl', 'view');
    if (typeof tenant !== 'string' || typeof view !== 'string' || typeof status !== 'string' || !isStatus(status) || !isTerminalStatus(status)) return;
    await this.options.onTerminal({ jobId, tenant, status, series: Number(series ?? 1), callbackUrl: callbackUrl ?? undefined, view });
  }

  /**
   * Terminal failure. A consumer passes its lease (fenced); an authority without one (the API
   * after a failed enqueue, the sweeper) passes the series it looked at, and is refused
   * (`leased`) while any consumer holds a live lease (scripts/fail.lua).
   */
  async fail(ref: JobRef, error: { code: JobErrorCode; message: string }, by: Lease | { series: number } = { series: 1 }): Promise<TransitionResult> {
    const { ttl, actor } = this.options;
    const fence = 'holder' in by ? fenceArgs(by) : [by.series, '', 0, ''];
    const keys = [this.jobKey(ref.jobId), this.leaseIndexKey(), this.failureCountsKey(), this.jobEventsKey(ref.jobId)];
    if (ref.batchId) keys.push(this.batchKey(ref.batchId), this.batchEventsKey(ref.batchId));
    const outcome = toResult(await runScript(this.redis, 'fail', keys, [...fence, actor, error.code, error.message.slice(0, 2_000), ttl.resultSeconds]));
    if (outcome.applied) await this.notifyTerminal(ref.jobId);
    return outcome;
  }

  /** Failed jobs counted by code since the deployment's Redis began (scripts/fail.lua). */
  failureCountsKey(): string {
    return `${this.options.prefix}:failures`;
  }

  async failureCounts(): Promise<Record<string, number>> {
    const counts = await this.redis.hgetall(this.failureCountsKey());
    return Object.fromEntries(Object.entries(counts).map(([code, n]) => [code, Number(n)]));
  }

  /** This store's writes for one consumer's lease: the form stage handlers get (see LeasedJobState). */
  leased(lease: Lease): LeasedJobState {
    return new LeasedJobState(this, lease);
  }

  /** Redis time in ms: the clock every process agrees on (budgets that span processes). */
  async now(): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
  }

  /** Entries of the live-lease index whose expiry has passed by Redis time, oldest first, and that time. */
  async expiredLeases(limit: number): Promise<{ now: number; expired: ExpiredLease[] }> {
    const reply = await runScriptRaw<(string | number)[]>(this.redis, 'expired-leases', [this.leaseIndexKey()], [limit]);
    const [now, ...flat] = reply;
    const expired: ExpiredLease[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const member = String(flat[i]);
      const bar = member.indexOf('|');
      expired.push({ jobId: member.slice(0, bar), holder: member.slice(bar + 1), expiredAt: Number(flat[i + 1]) });
    }
    return { now: Number(now), expired };
  }

  /** Drops an expired index entry whose stage job no queue holds any more (scripts/forget-lease.lua). */
  async forgetLease(entry: ExpiredLease): Promise<boolean> {
    const [applied] = await runScript(this.redis, 'forget-lease', [this.jobKey(entry.jobId), this.leaseIndexKey()], [entry.holder, this.graceMs]);
    return applied === 1;
  }

  /** Makes an expired index entry due again after `delayMs` (scripts/rearm-lease.lua). */
  async rearmLease(entry: ExpiredLease, delayMs: number): Promise<boolean> {
    const [applied] = await runScript(this.redis, 'rearm-lease', [this.leaseIndexKey()], [`${entry.jobId}|${entry.holder}`, delayMs]);
    return applied === 1;
  }

  /** The attempt series of a record (0 when there is none). */
  async seriesOf(jobId: string): Promise<number> {
    const series = await this.redis.hget(this.jobKey(jobId), 'series');
    return series === null ? 0 : Number(series);
  }

  /** Stores stage facts that must survive a takeover (`ext.*` fields; dropped when the job ends). */
  async annotate(ref: JobRef, lease: Lease, fields: Record<string, string>): Promise<TransitionResult> {
    const args = Object.entries(fields).flatMap(([k, v]) => [`ext.${k}`, v]);
    return toResult(await runScript(this.redis, 'annotate', [this.jobKey(ref.jobId)], [...fenceArgs(lease), ...args]));
  }

  /** The `ext.*` annotations of a record (empty when none, or when the record is gone). */
  async annotations(jobId: string): Promise<Record<string, string>> {
    const fields = await this.redis.hgetall(this.jobKey(jobId));
    return Object.fromEntries(Object.entries(fields).filter(([k]) => k.startsWith('ext.')).map(([k, v]) => [k.slice(4), v]));
  }

  /** Operator replay of a failed job: back to `queued` in a new attempt series (scripts/replay.lua). */
  async replay(ref: JobRef): Promise<TransitionResult & { series: number }> {
    const [applied, status, series] = await runScript(this.redis, 'replay', this.keys(ref), [this.options.actor, this.options.ttl.queuedSeconds, this.graceMs]);
    return { applied: applied === 1, status: status as TransitionResult['status'], series: Number(series ?? 0) };
  }

  /** Job ids with a record, a page at a time (SCAN: never blocks Redis). For maintenance only. */
  async *scanJobIds(count = 500): AsyncGenerator<string[]> {
    const match = `${this.options.prefix}:job:*`;
    const offset = match.length - 1;
    for await (const keys of scanKeys(this.redis, match, count)) yield keys.map((k) => k.slice(offset));
  }

  private async transition(name: 'start' | 'progress' | 'page-done' | 'heartbeat', ref: JobRef, lease: Lease, args: (string | number)[]): Promise<TransitionResult> {
    return toResult(await runScript(this.redis, name, this.keys(ref), [...fenceArgs(lease), ...args]));
  }

  /**
   * Job key, live-lease index, the job's event stream and, when the job belongs to a batch, the
   * batch key and the batch's event stream (the scripts' layout, prelude.lua).
   */
  private keys(ref: Pick<JobRef, 'jobId'> & { batchId?: string }): string[] {
    const keys = [this.jobKey(ref.jobId), this.leaseIndexKey(), this.jobEventsKey(ref.jobId)];
    if (ref.batchId) keys.push(this.batchKey(ref.batchId), this.batchEventsKey(ref.batchId));
    return keys;
  }

  private createArgs(job: NewJob): (string | number)[] {
    return [this.options.actor, this.options.ttl.queuedSeconds, this.graceMs, ...recordFields(job)];
  }
}

/**
 * One consumer's writes to the records it works on, all under its lease: what a stage handler
 * gets as `state`. A write the fence refuses throws LeaseLostError, so a zombie (a consumer that
 * woke up after another took its job over) stops at its next write instead of carrying on.
 */
export class LeasedJobState {
  private endedHere = false;

  constructor(
    private readonly store: JobStateStore,
    readonly lease: Lease,
  ) {}

  /**
   * Whether a write under this lease made the record terminal. A terminal record has left the
   * live-lease index and ignores a release (scripts/release.lua), so the runner skips that round trip.
   */
  get ended(): boolean {
    return this.endedHere;
  }

  progress(ref: JobRef, progress: { done: number; total: number }, phase?: Phase): Promise<TransitionResult> {
    return this.checked(this.store.progress(ref, this.lease, progress, phase));
  }

  pageDone(ref: JobRef, pageIndex: number): Promise<TransitionResult> {
    return this.checked(this.store.pageDone(ref, this.lease, pageIndex));
  }

  pagesDone(ref: JobRef, first: number, count: number): Promise<TransitionResult> {
    return this.checked(this.store.pagesDone(ref, this.lease, first, count));
  }

  async complete(ref: JobRef, result: ResultPointer): Promise<TransitionResult> {
    const outcome = await this.checked(this.store.complete(ref, this.lease, result));
    if (outcome.applied) this.endedHere = true;
    return outcome;
  }

  annotate(ref: JobRef, fields: Record<string, string>): Promise<TransitionResult> {
    return this.checked(this.store.annotate(ref, this.lease, fields));
  }

  annotations(jobId: string): Promise<Record<string, string>> {
    return this.store.annotations(jobId);
  }

  getJob(jobId: string): Promise<JobRecord | null> {
    return this.store.getJob(jobId);
  }

  now(): Promise<number> {
    return this.store.now();
  }

  private async checked(pending: Promise<TransitionResult>): Promise<TransitionResult> {
    const result = await pending;
    if (result.status === 'fenced' || result.status === 'stale') throw new LeaseLostError(result.status, this.lease);
    return result;
  }
}

function fenceArgs(lease: Lease): (string | number)[] {
  return [lease.series, lease.holder, lease.epoch, lease.token];
}

function recordFields(job: NewJob): (string | number)[] {
  const { tenant, source } = job;
  const fields: (string | number)[] = ['tenant', tenant, 'filename', source.filename, 'mediaType', source.mediaType, 'size', source.size, 'sha256', source.sha256];
  if (source.originalFilename !== undefined && source.originalFilename !== source.filename) fields.push('originalFilename', source.originalFilename);
  if (job.batch) fields.push('batchId', job.batch.batchId, 'batchIndex', job.batch.index);
  if (job.callbackUrl) fields.push('callbackUrl', job.callbackUrl);
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
