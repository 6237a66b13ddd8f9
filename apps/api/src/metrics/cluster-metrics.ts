import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '@readpack/logging';
import { Recent } from './recent.js';

/*
 * HTTP metrics across node:cluster workers: any worker asked for /metrics asks the primary, which
 * collects every worker's registry over IPC with prom-client's AggregatorRegistry and answers with
 * the sum. Workers forked by cluster.ts carry CLUSTER_METRICS_ENV; under PM2's cluster mode (no
 * primary of ours to ask) each process answers for itself.
 */

export const CLUSTER_METRICS_ENV = 'READPACK_CLUSTER_METRICS';
const REQUEST = 'readpack:metrics-request';
const ANSWER = 'readpack:metrics-answer';
/** prom-client's own collection timeout is 5 s; a scrape must not wait that long on a stuck worker. */
const ANSWER_TIMEOUT_MS = 2_000;
const FRESH_MS = 1_000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAnswer = (message: unknown): message is Answer => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ANSWER;

/** In the primary: answers workers' requests with the cluster-wide sum. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== REQUEST) return;
    const id = (message as { id: number }).id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (error: unknown) => worker.send({ type: ANSWER, id, error: String(error) } satisfies Answer),
    );
  });
}

let nextId = 0;

/**
 * In a worker: this process's registry joins the cluster's, and the function answers with the
 * cluster's sum, at most a second old (collecting and summing every worker's registry is the
 * expensive part of a scrape; it runs in the background, in the primary).
 */
export function clusterHttpMetrics(registry: Registry, logger: Logger): () => Promise<string> {
  if (!cluster.isWorker || process.env[CLUSTER_METRICS_ENV] !== '1' || !process.send) return () => registry.metrics();
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's answering side of the IPC protocol in this worker.
  new AggregatorRegistry();
  const recent = new Recent(askPrimary, FRESH_MS, (error) => logger.warn('could not collect the cluster\'s HTTP metrics; answering the last sum', { error: String(error) }));
  return () => recent.get();
}

function askPrimary(): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const id = nextId++;
    const onMessage = (message: unknown) => {
      if (!isAnswer(message) || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.error !== undefined || message.text === undefined) reject(new Error(`cluster metrics: ${message.error ?? 'no answer'}`));
      else resolve(message.text);
    };
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('cluster metrics: the primary did not answer in time'));
    }, ANSWER_TIMEOUT_MS);
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id });
  });
}
