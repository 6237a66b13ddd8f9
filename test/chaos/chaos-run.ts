import type { JobRecord } from '@readpack/job-state';
import { waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import type { Pipeline, StatusBody } from '../harness.js';
import type { ConsumerFleet, LogLine } from '../durability/fleet.js';
import { ChaosController, type Kill } from './controller.js';
import type { ChaosDocument } from './documents.js';
import {
  allJobRecords,
  deadLetterEntries,
  packageFiles,
  unfinishedQueueJobs,
  settleAll,
  StatusWatch,
  uploadOne,
  type DeadLetterEntry,
  type PollLog,
  type Uploaded,
} from './inspect.js';
import { shuffled, type ChaosSettings } from './settings.js';

/** Everything the chaos run leaves behind, collected after its consumers have stopped. */
export interface ChaosOutcome {
  uploads: Uploaded[];
  finals: Map<string, StatusBody>;
  polls: PollLog;
  kills: Kill[];
  restarts: number;
  logs: LogLine[];
  records: Map<string, JobRecord>;
  packages: Map<string, Buffer>;
  deadLetters: DeadLetterEntry[];
  /** Failed jobs counted by code (packages/job-state/scripts/fail.lua). */
  failureCounts: Record<string, number>;
  unfinished: Record<string, number>;
}

/**
 * Uploads every document (heavy ones first, each group in a seeded random order, spread over the
 * upload window; corpus files twice at once) while the controller SIGKILLs consumers, until every
 * job is terminal. The kills stop when the chaos window ends or every job is terminal, whichever
 * comes first; then the consumers are stopped gracefully (their logs complete) and the state is
 * collected.
 */
export async function chaosRun(
  deps: { pipeline: Pipeline; fleet: ConsumerFleet; redis: RedisClient },
  documents: ChaosDocument[],
  settings: ChaosSettings,
  random: () => number,
  /** How long jobs may take to end once the chaos window is over. */
  settleTimeoutMs: number,
): Promise<ChaosOutcome> {
  const { pipeline, fleet, redis } = deps;
  const base = pipeline.api.url;
  const controller = new ChaosController(fleet, { minMs: settings.killMinMs, maxMs: settings.killMaxMs, random });
  // Heavy documents first, so their long work overlaps the later uploads instead of trailing them.
  const order = [...shuffled(documents.filter((d) => d.heavy), random), ...shuffled(documents.filter((d) => !d.heavy), random)];
  const step = order.length > 1 ? settings.uploadWindowMs / (order.length - 1) : 0;

  const watch = new StatusWatch(base);
  const startedAt = Date.now();
  controller.start();
  try {
    const uploads = (
      await settleAll(
        order.map(async (doc, i) => {
          await new Promise((r) => setTimeout(r, i * step));
          const copies = doc.uploadTwice ? 2 : 1;
          const uploaded = await settleAll(Array.from({ length: copies }, () => uploadOne(base, doc.name, doc.data)));
          for (const u of uploaded) watch.add(u.jobId);
          return uploaded;
        }),
      )
    ).flat();
    let chaosTimer: NodeJS.Timeout | undefined;
    const chaosOver = new Promise<void>((r) => (chaosTimer = setTimeout(r, Math.max(0, startedAt + settings.chaosMs - Date.now()))));
    const terminal = watch.settled(settings.chaosMs + settleTimeoutMs);
    await Promise.race([chaosOver, terminal.catch(() => undefined)]);
    clearTimeout(chaosTimer);
    await controller.stop();
    const { finals, polls } = await terminal;

    // Every killed consumer back (its restart counted).
    const expected = fleet.live().length;
    await waitFor(async () => (fleet.running().length === expected ? true : undefined), { what: 'every killed consumer to be restarted', timeoutMs: 30_000 });
    const restarts = fleet.restarts;
    // A consumer killed after recording `done` but before BullMQ heard of it leaves its queue job
    // active until a stall check hands it to a live consumer, which skips it (the record is
    // terminal). Give the live fleet the time for that (a few lease periods); what is still
    // unfinished after it is reported below and fails the test.
    await waitFor(async () => (Object.keys(await unfinishedQueueJobs(redis, pipeline.config)).length === 0 ? true : undefined), {
      what: 'the stage queues to drain',
      timeoutMs: 20_000,
      intervalMs: 250,
    }).catch(() => undefined);
    // A graceful stop flushes every log.
    await fleet.stop();

    return {
      uploads,
      finals,
      polls,
      kills: controller.kills,
      restarts,
      logs: fleet.logs(),
      records: await allJobRecords(redis, pipeline.config),
      packages: await packageFiles(pipeline.config.dataDir),
      deadLetters: await deadLetterEntries(redis, pipeline.config),
      failureCounts: Object.fromEntries(Object.entries(await redis.hgetall(`${pipeline.config.redis.prefix}:failures`)).map(([code, n]) => [code, Number(n)])),
      unfinished: await unfinishedQueueJobs(redis, pipeline.config),
    };
  } finally {
    watch.stop();
    await controller.stop();
  }
}
