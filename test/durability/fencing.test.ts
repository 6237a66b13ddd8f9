import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { connectTestRedis, containsSnippet, fixturePath, waitFor } from '@readpack/testing';
import type { RedisClient } from '@readpack/redis';
import { pollUntilTerminal, startPipeline, upload, type Pipeline } from '../harness.js';
import { ConsumerFleet, type LogLine } from './fleet.js';

/**
 * A lock long enough that the frozen successor keeps it while the zombie finishes its parse and
 * tries to write (renewed at least every 7.5 s, a quarter of the lock: it holds at least 22.5 s
 * after the freeze); the takeover of the zombie's job then comes about 30 s after its freeze.
 */
const LEASES = { LOCK_DURATION_MS: '30000', STALLED_INTERVAL_MS: '1000' };
const ZOMBIE_WINDOW_MS = 20_000;

let pipeline: Pipeline;
let fleet: ConsumerFleet | undefined;
let redis: RedisClient;

beforeAll(async () => {
  pipeline = await startPipeline(LEASES, { consumers: false });
  redis = connectTestRedis();
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});
afterAll(async () => {
  await redis.quit();
  await pipeline?.stop();
});

describe('a zombie consumer (SIGSTOP past its lease, resumed after a takeover)', () => {
  it('moves nothing: the record, the package and the history are what the consumer that took over wrote', async () => {
    fleet = new ConsumerFleet(pipeline.config, LEASES);
    const [a, b] = await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const res = await upload(pipeline.api.url, [{ name: 'zombie.pdf', data: await readFile(fixturePath('GeoTopo-komprimiert.pdf')) }]);
    const { jobId } = (await res.json()) as { jobId: string };
    const about = (message: string) => (l: LogLine) => l.jobId === jobId && l.stage === 'extract' && l.message === message;

    const zombie = await waitFor(async () => fleet!.runnerOf(jobId, 'extract'), { what: 'a consumer to start the job', timeoutMs: 30_000 });
    const successor = zombie === a ? b! : a!;
    zombie.child.kill('SIGSTOP');
    // The successor takes the job over once the frozen consumer's lock lapses; freeze it too, so
    // that the record holds still while the zombie runs.
    await waitFor(async () => (fleet!.logsOf(successor).some(about('stage started')) ? true : undefined), { what: 'the takeover', timeoutMs: 60_000 });
    successor.child.kill('SIGSTOP');
    const key = `${pipeline.config.redis.prefix}:job:${jobId}`;
    const index = `${pipeline.config.redis.prefix}:leases`;
    const before = { record: await redis.hgetall(key), leases: await redis.zrange(index, 0, -1, 'WITHSCORES') };
    expect(before.record.status).toBe('processing');

    zombie.child.kill('SIGCONT');
    // Its heartbeat is overdue and fires at once (refused); its parse goes on, and its next write
    // (the progress at the end of extract) is refused too, which stops it.
    const windowStart = Date.now();
    await waitFor(async () => (fleet!.logsOf(zombie).some(about('lease lost: stopped; the consumer that took the job over owns it')) ? true : undefined), {
      what: 'the zombie to be fenced off',
      timeoutMs: ZOMBIE_WINDOW_MS,
    }).catch((error: unknown) => {
      // What the zombie did instead: its lines about the job and every warning.
      console.error(JSON.stringify(fleet!.logsOf(zombie).filter((l) => l.jobId === jobId || l.level !== 'info'), null, 1), zombie.outputTail(2_000));
      throw error;
    });
    expect(Date.now() - windowStart).toBeLessThan(ZOMBIE_WINDOW_MS); // the successor's lock still held
    expect(fleet.logsOf(zombie).some(about('lease lost: another consumer took the job over; this one stops at its next write'))).toBe(true);
    expect({ record: await redis.hgetall(key), leases: await redis.zrange(index, 0, -1, 'WITHSCORES') }).toEqual(before);

    successor.child.kill('SIGCONT');
    const history = await pollUntilTerminal(pipeline.api.url, jobId, 60_000);
    expect(history.at(-1)).toMatchObject({ status: 'done' });
    for (let i = 1; i < history.length; i += 1) expect(history[i]!.progress.done).toBeGreaterThanOrEqual(history[i - 1]!.progress.done);
    const record = await redis.hgetall(key);
    expect(record.history).toBeUndefined(); // never failed, never replayed
    expect(record.series).toBe('1');
    const pkg = (await (await fetch(`${pipeline.api.url}/api/files/job/${jobId}/package`)).json()) as { text: string };
    expect(containsSnippet(pkg.text, 'Retraktion, 47')).toBe(true);
    // The zombie never finished the stage; the successor did, once.
    expect(fleet.logsOf(zombie).filter(about('stage finished'))).toEqual([]);
    expect(fleet.logsOf(successor).filter(about('stage finished'))).toHaveLength(1);
  }, 150_000);
});
