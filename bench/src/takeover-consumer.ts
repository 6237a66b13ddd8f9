/**
 * A consumer for `npm run bench:durability`'s per-stage takeover trials:
 * `node bench/dist/takeover-consumer.js <stage> <redisUrl> <prefix>`. A BullMQ Worker on the
 * stage's queue with exactly the lease options the real consumer passes for that stage
 * (bullWorkerLeaseOptions(leaseSettings(stage))), so BullMQ renews, lapses and takes over locks as
 * in production. The first start of a job holds it (its event loop free, as the real consumers keep
 * theirs) until the bench SIGKILLs the process; a start after a stall (the takeover) completes at
 * once. Prints one JSON line per start.
 */
import { Worker } from 'bullmq';
import { bullPrefix, bullWorkerLeaseOptions, leaseSettings, QUEUES, type QueueName } from '@readpack/queues';
import { createConsumerConnection } from '@readpack/redis';

const [stage, url, prefix] = process.argv.slice(2) as [QueueName, string, string];
const connection = createConsumerConnection({ url }, `bench-takeover-${stage}`);
const worker = new Worker(
  QUEUES[stage].name,
  async (job) => {
    process.stdout.write(`${JSON.stringify({ message: 'started', jobId: job.id, pid: process.pid, at: Date.now(), stalls: job.stalledCounter })}\n`);
    if (job.stalledCounter === 0) await new Promise(() => undefined);
  },
  { connection, prefix: bullPrefix(prefix), concurrency: 1, ...bullWorkerLeaseOptions(leaseSettings(stage, { lockDurationMs: undefined, stalledIntervalMs: undefined })) },
);
worker.on('error', (error) => process.stderr.write(`worker error: ${error.message}\n`));
void worker.waitUntilReady().then(() => process.stdout.write(`${JSON.stringify({ message: 'ready', pid: process.pid })}\n`));
