import { isRedisUnavailableError } from './index.js';

/**
 * A command that fails while Redis is unreachable or failing over can reject a promise nothing
 * awaits: BullMQ's internals did so during a Redis Cluster failover (CLUSTERDOWN, "Too many
 * Cluster redirections"). Node ends a process on an unhandled rejection, which would turn an
 * outage every process rides through (commands are retried, jobs are taken over, leases fence
 * late writes) into every consumer and API process crashing at once. Such rejections are
 * reported and the process runs on; any other unhandled rejection is thrown again and still ends
 * the process, as Node's default would (a bug must not be swallowed).
 */
export function surviveRedisOutageRejections(report: (error: Error) => void): void {
  process.on('unhandledRejection', (reason: unknown) => {
    if (!isRedisUnavailableError(reason)) throw reason;
    report(reason as Error);
  });
}
