import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { deadLettered, isJobErrorCode } from '@readpack/job-state';
import { connectTestRedis } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { startPipeline, type Pipeline } from '../harness.js';
import { ConsumerFleet, FAST_LEASES } from '../durability/fleet.js';
import { killPids, processesWithEnv } from '../support/procfs.js';
import { calmRun, type Reference } from './calm-run.js';
import { chaosRun, type ChaosOutcome } from './chaos-run.js';
import { jobKey } from './controller.js';
import { chaosDocuments, type ChaosDocument } from './documents.js';
import { normalizedManifest, sha256 } from './inspect.js';
import { chaosSettings, IN_PROCESS_API, seededRandom } from './settings.js';

/**
 * Durable execution under chaos (settings.ts for the knobs; `npm run test:chaos` is the long
 * form). The same documents go first through a calm pipeline, then through consumer processes
 * (two per stage, short leases) that a controller SIGKILLs every few seconds while uploads arrive;
 * the fleet restarts each victim and BullMQ's lease expiry hands its jobs to the other consumer.
 * The sweeper runs every 2 s throughout: it must never mistake a job being taken over for an orphan.
 */
const settings = chaosSettings();
const random = seededRandom(settings.seed);
const SEED = `CHAOS_SEED=${settings.seed}`;
/** Generous: on a loaded two-core machine the scans' OCR alone takes tens of seconds. */
const CALM_TIMEOUT_MS = 120_000 + settings.docs * 3_000;
const SETTLE_TIMEOUT_MS = 180_000;

let documents: ChaosDocument[];
let reference: Map<string, Reference>;
let pipeline: Pipeline | undefined;
let fleet: ConsumerFleet | undefined;
let redis: RedisClient;
let run: ChaosOutcome;
const timings = { calmMs: 0, chaosMs: 0 };

beforeAll(async () => {
  redis = connectTestRedis();
  documents = await chaosDocuments(settings.docs);
  const calmStarted = Date.now();
  reference = await calmRun(documents, CALM_TIMEOUT_MS);
  timings.calmMs = Date.now() - calmStarted;

  pipeline = await startPipeline({ ...FAST_LEASES, ...IN_PROCESS_API }, { consumers: false });
  fleet = new ConsumerFleet(pipeline.config, { SWEEPER_INTERVAL_MS: '2000' });
  await fleet.startAll(settings.consumersPerStage);
  fleet.keepAlive();
  const chaosStarted = Date.now();
  run = await chaosRun({ pipeline, fleet, redis }, documents, settings, random, SETTLE_TIMEOUT_MS);
  timings.chaosMs = Date.now() - chaosStarted;
  // One line per run: what the chaos did, and the seed to repeat it.
  console.info(summary());
  if (settings.dumpTo) await writeFile(settings.dumpTo, JSON.stringify({ seed: settings.seed, uploads: run.uploads, kills: run.kills, records: [...run.records.values()], logs: run.logs }));
}, CALM_TIMEOUT_MS + settings.chaosMs + SETTLE_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await fleet?.stop();
  // A crashed run must not leave consumers behind: they carry this run's unique prefix.
  if (pipeline) killPids(processesWithEnv('READPACK_PREFIX', pipeline.config.redis.prefix));
  await pipeline?.stop();
  await redis?.quit();
}, 60_000);

function summary(): string {
  const takeovers = [...pidsPerJob().values()].filter((pids) => pids.size > 1).length;
  return `chaos (${SEED}): ${documents.length} documents, ${run.uploads.length} uploads, ${run.finals.size} jobs, ${run.kills.length} kills ` +
    `(${run.kills.filter((k) => k.inFlight.length > 0).length} mid-job), ${run.restarts} restarts, ${takeovers} stage runs taken over; ` +
    `calm run ${(timings.calmMs / 1_000).toFixed(1)} s, chaos run ${(timings.chaosMs / 1_000).toFixed(1)} s`;
}

/** The consumer pids that logged 'stage started' for each BullMQ job (see jobKey). */
function pidsPerJob(): Map<string, Set<unknown>> {
  const pids = new Map<string, Set<unknown>>();
  for (const line of run.logs.filter((l) => l.message === 'stage started')) {
    const set = pids.get(jobKey(line)) ?? new Set();
    set.add(line.pid);
    pids.set(jobKey(line), set);
  }
  return pids;
}

function documentOf(jobId: string): ChaosDocument {
  const name = run.uploads.find((u) => u.jobId === jobId)!.name;
  return documents.find((d) => d.name === name)!;
}

describe(`chaos (${SEED}): ${settings.docs} documents, ${settings.consumersPerStage} consumers per stage, a SIGKILL every ${settings.killMinMs}–${settings.killMaxMs} ms`, () => {
  it('the calm run ends every document as expected (the reference is sound)', () => {
    for (const doc of documents) {
      const ref = reference.get(doc.name)!;
      expect({ name: doc.name, status: ref.status, code: ref.code }).toEqual({
        name: doc.name,
        status: doc.expected.status,
        code: doc.expected.status === 'failed' ? doc.expected.code : undefined,
      });
    }
  });

  it('the chaos was real: consumers died mid-job, were restarted, and others took their jobs over', () => {
    const minKills = Math.max(1, Math.floor(settings.uploadWindowMs / (settings.killMaxMs + 1_000)));
    expect(run.kills.length).toBeGreaterThanOrEqual(minKills);
    expect(run.restarts).toBe(run.kills.length);
    expect(run.kills.filter((k) => k.inFlight.length > 0).length).toBeGreaterThan(0);
    // A stage run that logged 'stage started' in two processes was taken over after its consumer died.
    const takenOver = [...pidsPerJob().values()].filter((pids) => pids.size > 1);
    expect(takenOver.length).toBeGreaterThan(0);
  });

  it('uploads: each distinct document got its own job; a concurrent duplicate joined it unless it had already ended', () => {
    for (const doc of documents) {
      const mine = run.uploads.filter((u) => u.name === doc.name);
      expect(mine).toHaveLength(doc.uploadTwice ? 2 : 1);
      const jobIds = new Set(mine.map((u) => u.jobId));
      if (jobIds.size === 1) expect(mine.filter((u) => !u.deduplicated)).toHaveLength(1);
      else expect(mine.every((u) => !u.deduplicated)).toBe(true);
    }
    // Never one job for two different documents.
    const owners = new Map<string, Set<string>>();
    for (const u of run.uploads) owners.set(u.jobId, (owners.get(u.jobId) ?? new Set()).add(u.name));
    expect([...owners].filter(([, names]) => names.size > 1)).toEqual([]);
  });

  it('every job ends done, or failed only for a document meant to fail and with its code; polls only ever saw 200', () => {
    expect(run.polls.unexpected).toEqual([]);
    const outcomes = [...run.finals].map(([jobId, final]) => ({ jobId, name: documentOf(jobId).name, status: final.status, code: final.error?.code }));
    const expected = outcomes.map(({ jobId, name }) => {
      const want = documentOf(jobId).expected;
      return { jobId, name, status: want.status, code: want.status === 'failed' ? want.code : undefined };
    });
    expect(outcomes).toEqual(expected);
  });

  it('every package is written exactly once, matches its record, and is byte-identical to the calm run', () => {
    const done = [...run.finals].filter(([, f]) => f.status === 'done');
    // One manifest file per done job and no other: failed jobs have none, nothing is written twice under two ids.
    expect([...run.packages.keys()].sort()).toEqual(done.map(([jobId]) => jobId).sort());
    const killed = new Set(run.kills.map((k) => k.pid));
    for (const [jobId, final] of done) {
      const bytes = run.packages.get(jobId)!;
      const record = run.records.get(jobId)!;
      expect({ jobId, packageId: record.result?.packageId, sha256: record.result?.sha256, size: record.result?.size }).toEqual({
        jobId,
        packageId: jobId,
        sha256: sha256(bytes),
        size: bytes.length,
      });
      expect(final.result).toEqual(record.result);
      expect({ jobId, manifest: normalizedManifest(bytes, jobId) }).toEqual({ jobId, manifest: reference.get(documentOf(jobId).name)!.manifest });

      // Re-runs after a takeover may write the package again (same bytes), but only one completion is ever recorded.
      const written = run.logs.filter((l) => l.jobId === jobId && l.message === 'package written');
      expect(written.filter((l) => l.sha256 !== record.result!.sha256)).toEqual([]);
      const recorded = written.filter((l) => l.recorded === true);
      const completedBy = Number(record.updatedBy.slice(record.updatedBy.lastIndexOf(':') + 1));
      // A consumer killed right after recording may die before its log line is out; any other must have logged it.
      const lineLost = killed.has(completedBy) && recorded.length === 0;
      expect({ jobId, recordedBy: recorded.map((l) => l.pid) }).toEqual({ jobId, recordedBy: lineLost ? [] : [completedBy] });
    }
  });

  it('no record is left queued or processing, none was replayed, and no queue job is left to run', () => {
    const jobIds = new Set(run.finals.keys());
    expect([...run.records.keys()].sort()).toEqual([...jobIds].sort());
    const notTerminal = [...run.records.values()].filter((r) => r.status !== 'done' && r.status !== 'failed');
    expect(notTerminal.map((r) => `${r.jobId}: ${r.status}/${r.phase}`)).toEqual([]);
    expect([...run.records.values()].filter((r) => r.series !== 1).map((r) => r.jobId)).toEqual([]);
    expect(run.unfinished).toEqual({});
  });

  it('the dead-letter queues hold exactly the failed jobs an operator can act on, each once, with its code; every failure is counted by code', () => {
    // docs/errors.md: a document error the user caused (the documents meant to fail here) is
    // counted, not dead-lettered; transient, internal and poison failures are dead-lettered.
    const byJobId = (a: { jobId: string }, b: { jobId: string }) => a.jobId.localeCompare(b.jobId);
    const failed = [...run.finals.keys()]
      .map((jobId) => ({ jobId, want: documentOf(jobId).expected }))
      .flatMap(({ jobId, want }) => (want.status === 'failed' ? [{ jobId, code: want.code }] : []));
    expect(failed.length).toBeGreaterThan(0);
    const expected = failed
      .filter(({ code }) => isJobErrorCode(code) && deadLettered(code))
      .map(({ jobId, code }) => ({ queue: 'extract-dlq', jobId, code }))
      .sort(byJobId);
    expect(run.deadLetters.map(({ queue, jobId, code }) => ({ queue, jobId, code })).sort(byJobId)).toEqual(expected);
    const counted: Record<string, number> = {};
    for (const { code } of failed) counted[code] = (counted[code] ?? 0) + 1;
    expect(run.failureCounts).toEqual(counted);
  });
});
