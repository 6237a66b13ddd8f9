import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, rm } from 'node:fs/promises';
import { connectTestRedis, deleteKeysWithPrefix, fixturePath, startOtlpReceiver, waitFor, type CollectedSpan, type OtlpReceiver } from '@readpack/testing';
import type { Config } from '@readpack/config';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { ConsumerFleet, FAST_LEASES } from '../durability/fleet.js';
import { pollUntilTerminal, testConfig, upload } from '../harness.js';
import { waitForHealthy } from '../support/fresh-http.js';
import { startApiProcess } from '../support/readpack-processes.js';
import type { ServiceProcess } from '../support/service-process.js';

/*
 * A job taken over after its consumer was SIGKILLed stays in its document's trace: the context
 * is in the job's data, so the consumer that takes it over hangs its spans below the same
 * enqueue span. The killed consumer's handler span never ended (never exported); only its own
 * children may point at it.
 */

let receiver: OtlpReceiver;
let config: Config;
let api: ServiceProcess;
let fleet: ConsumerFleet;
let baseUrl: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  config = await testConfig(FAST_LEASES);
  const port = await findFreePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  api = await startApiProcess({ REDIS_URL: config.redis.url, READPACK_PREFIX: config.redis.prefix, DATA_DIR: config.dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...FAST_LEASES, ...otel });
  fleet = new ConsumerFleet(config, otel);
  await waitForHealthy(baseUrl, { timeoutMs: 60_000, describe: () => api.outputTail() });
}, 90_000);

afterAll(async () => {
  await fleet?.stop();
  await api?.stop('SIGTERM', 15_000);
  await receiver?.close();
  const redis = connectTestRedis();
  await deleteKeysWithPrefix(redis, config.redis.prefix);
  await redis.quit();
  await rm(config.dataDir, { recursive: true, force: true });
}, 60_000);

describe('tracing through a takeover', () => {
  it('the consumer that takes a job over continues the same trace, under the same enqueue span', async () => {
    await fleet.start('extract', 2);
    await fleet.start('assemble', 1);
    const res = await upload(baseUrl, [{ name: 'takeover.pdf', data: await readFile(fixturePath('GeoTopo-komprimiert.pdf')) }]);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    const victim = await waitFor(async () => fleet.runnerOf(jobId, 'extract'), { what: 'a consumer to start the job', timeoutMs: 60_000 });
    victim.child.kill('SIGKILL');
    expect((await pollUntilTerminal(baseUrl, jobId, 120_000)).at(-1)?.status).toBe('done');
    await fleet.stop();
    await api.stop('SIGTERM', 15_000);
    expect(receiver.rejected()).toEqual([]);

    const spans = receiver.spans();
    const root = spans.find((s) => s.name === 'upload' && s.attributes['readpack.job.id'] === jobId);
    expect(root).toBeDefined();
    const trace = spans.filter((s) => s.traceId === root!.traceId);
    const ids = new Set(trace.map((s) => s.spanId));
    const enqueue = trace.filter((s) => s.name === 'queue.enqueue' && s.service === 'readpack-api');
    expect(enqueue).toHaveLength(1);

    const handlers = trace.filter((s) => s.name === 'stage.extract');
    // The survivor's handler: another process, below the API's enqueue span, like the first start.
    const survivor = handlers.filter((s) => s.pid !== victim.pid);
    expect(survivor).toHaveLength(1);
    expect(survivor[0]!.parentSpanId).toBe(enqueue[0]!.spanId);
    // Its second start: the first was the victim's.
    expect(survivor[0]!.attributes['readpack.start']).toBe(2);
    expect(handlers.filter((s) => s.pid === victim.pid)).toEqual([]);
    const waits = trace.filter((s) => s.name === 'queue.wait' && s.attributes['readpack.stage'] === 'extract');
    expect(waits.filter((s) => s.pid !== victim.pid).map((s) => s.parentSpanId)).toEqual([enqueue[0]!.spanId]);
    // The rest of the document follows the survivor: its fan-out is assemble's parent.
    const fanOut = trace.filter((s) => s.name === 'queue.fan_out');
    expect(fanOut.map((s) => s.parentSpanId)).toEqual([survivor[0]!.spanId]);
    expect(trace.filter((s) => s.name === 'stage.assemble').map((s) => s.parentSpanId)).toEqual([fanOut[0]!.spanId]);
    // Dangling parents: only the victim's own spans may point at its handler span, which died unended.
    const dangling = trace.filter((s: CollectedSpan) => s.parentSpanId && !ids.has(s.parentSpanId));
    expect(dangling.filter((s) => s.pid !== victim.pid)).toEqual([]);
  }, 240_000);
});
