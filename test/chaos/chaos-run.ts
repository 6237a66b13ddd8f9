import type { JobRecord } from '@readpack/job-state';
import { waitFor } from '@readpack/testing';
import type { Redis } from 'ioredis';
import type { Pipeline, StatusBody } from '../harness.js';
import type { ConsumerFleet, LogLine } from '../durability/fleet.js';
import { ChaosController, type Kill } from './controller.js';
import type { ChaosDocument } from './documents.js';
import {
  allJobRecords,
  deadLetterEntries,
  packageFiles,
  unfinishedQueueJobs,
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
  unfinished: Record<string, number>;
}

/**
 * Uploads every document (in a seeded random order, spread over the upload window; corpus files
 * twice at once) while the controller SIGKILLs consumers, until every job is terminal. The kills
 * stop when the chaos window ends or every job is terminal, whichever comes first; then the
 * consumers are stopped gracefully (their logs complete) and the state is collected.
 */
export async function chaosRun(
  deps: { pipeline: Pipeline; fleet: ConsumerFleet; redis: Redis },
  documents: ChaosDocument[],
  settings: ChaosSettings,
  random: () => number,
): Promise<ChaosOutcome> {
  const { pipeline, fleet, redis } = deps;
  const base = pipeline.api.url;
  const controller = new ChaosController(fleet, { minMs: settings.killMinMs, maxMs: settings.killMaxMs, random });
  const order = shuffled(documents, random);
  const step = order.length > 1 ? settings.uploadWindowMs / (order.length - 1) : 0;

  const watch = new StatusWatch(base);
  const startedAt = Date.now();
  controller.start();
  try {
    const uploads = (
      await Promise.all(
        order.map(async (doc, i) => {
          await new Promise((r) => setTimeout(r, i * step));
          const copies = doc.uploadTwice ? 2 : 1;
          const uploaded = await Promise.all(Array.from({ length: copies }, () => uploadOne(base, doc.name, doc.data)));
          for (const u of uploaded) watch.add(u.jobId);
          return uploaded;
        }),
      )
    ).flat();
    let chaosTimer: NodeJS.Timeout | undefined;
    const chaosOver = new Promise<void>((r) => (chaosTimer = setTimeout(r, Math.max(0, startedAt + settings.chaosMs - Date.now()))));
    const terminal = watch.settled(settings.chaosMs + 180_000);
    await Promise.race([chaosOver, terminal.catch(() => undefined)]);
    clearTimeout(chaosTimer);
    await controller.stop();
    const { finals, polls } = await terminal;

    // Every killed consumer back (its restart counted), then a graceful stop flushes every log.
    const expected = fleet.live().length;
    await waitFor(async () => (fleet.running().length === expected ? true : undefined), { what: 'every killed consumer to be restarted', timeoutMs: 30_000 });
    const restarts = fleet.restarts;
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
      unfinished: await unfinishedQueueJobs(redis, pipeline.config),
    };
  } finally {
    await controller.stop();
  }
}
