import { FlowProducer, Queue, type FlowJob, type JobsOptions } from 'bullmq';
import type { Config } from '@readpack/config';
import type { RedisClient } from '@readpack/redis';
import { ATTR, currentTraceCarrier, inSpan, SPAN, type TraceCarrier } from '@readpack/tracing';
import { bullPrefix, deadLetterQueueName, QUEUES, stageJobId, type PayloadOf, type QueueName } from './catalogue.js';
import { MAINTENANCE_QUEUE } from './maintenance.config.js';
import { WEBHOOK_DLQ, WEBHOOK_QUEUE } from './webhook.config.js';

/** One child of a document's assemble job: a stage job, itself possibly waiting on children. */
export interface FlowChild {
  name: QueueName;
  payload: unknown;
  /** Distinguishes several children of one stage (e.g. `p3` for page 3). */
  part?: string;
  children?: FlowChild[];
}

/** Job options the deployment tunes (retry delays); everything else stays in the queue configs. */
export function jobOptionOverrides(config: Config): Partial<Record<QueueName, JobsOptions>> {
  return { mineru: { backoff: { type: 'exponential', delay: config.mineru.retryDelayMs, jitter: 0.5 } } };
}

/**
 * The producer side of the catalogue: typed, validated adds. Holds Queue and FlowProducer objects
 * only (never a Worker), so the API can import it without pulling in consumer code.
 */
export class QueueProducer {
  private readonly queues = new Map<QueueName, Queue>();
  private flows: FlowProducer | undefined;
  private extraQueues: Queue[] | undefined;

  /**
   * `onError` receives connection errors of the underlying queues. It must exist: an 'error'
   * event nobody listens to is thrown by Node, and a Redis blip would take the process down.
   */
  constructor(
    private readonly connection: RedisClient,
    private readonly prefix: string,
    private readonly options: { overrides?: Partial<Record<QueueName, JobsOptions>>; onError: (error: Error) => void },
  ) {}

  private watched<T extends { on(event: 'error', listener: (error: Error) => void): unknown }>(emitter: T): T {
    emitter.on('error', this.options.onError);
    return emitter;
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      const created = this.watched(new Queue(QUEUES[name].name, { connection: this.connection, prefix: bullPrefix(this.prefix) }));
      this.queues.set(name, created);
      // A BullMQ Queue whose setup failed (its first commands timed out: a loaded host, a Redis
      // blip) fails every later add with the same error. Forget it, so that the next add builds a
      // new one instead of the API answering 503 until it restarts. (The error was reported.)
      created.waitUntilReady().catch(() => {
        if (this.queues.get(name) === created) this.queues.delete(name);
      });
      queue = created;
    }
    return queue;
  }

  /** Adds the stage job for `payload.jobId`. The payload is validated here and again by the consumer. */
  async add<N extends QueueName>(name: N, payload: PayloadOf<N>, options: { priority?: number; part?: string } = {}): Promise<void> {
    await this.addUntyped(name, payload, options);
  }

  /** For data whose type is only known at run time (a dead-letter replay): validated by the queue's schema. */
  async addUntyped(name: QueueName, payload: unknown, options: { priority?: number; part?: string } = {}): Promise<void> {
    const data = QUEUES[name].payload.parse(payload);
    const { part, ...rest } = options;
    const attributes = { [ATTR.queue]: name, [ATTR.jobId]: data.jobId, [ATTR.tenant]: data.tenant };
    await inSpan(SPAN.enqueue, { kind: 'producer', attributes }, () =>
      this.queue(name).add(name, traced(data), { ...this.jobOptions(name), ...rest, jobId: stageJobId(data.jobId, name, data.series, part) }),
    );
  }

  /**
   * Adds a document's assemble job as the parent of `children` (BullMQ flow): assemble runs once
   * every child has completed or failed for good. A failed child never leaves the parent waiting
   * (`ignoreDependencyOnFailure`): assemble reads the failures and decides what the document
   * becomes. Every id is deterministic, so a re-delivered step re-adds nothing. The payload says
   * how many children there are, so that assemble skips reading the values of none.
   */
  async addAssembleFlow(payload: Omit<PayloadOf<'assemble'>, 'children'>, children: FlowChild[], options: { priority?: number } = {}): Promise<void> {
    const data = QUEUES.assemble.payload.parse({ ...payload, children: children.length });
    const attributes = { [ATTR.queue]: 'assemble', [ATTR.jobId]: data.jobId, [ATTR.tenant]: data.tenant, [ATTR.children]: children.length };
    // Every job of the flow, parent and children, carries the fan-out span's context.
    await inSpan(SPAN.fanOut, { kind: 'producer', attributes }, () => this.addFlow(data, children, options));
  }

  private async addFlow(data: PayloadOf<'assemble'>, children: FlowChild[], options: { priority?: number }): Promise<void> {
    const series = data.series;
    if (children.length === 0) {
      // Nothing to wait for: a plain job, one script call, where a flow is a MULTI around it.
      await this.queue('assemble').add('assemble', traced(data), { ...this.jobOptions('assemble'), ...options, jobId: stageJobId(data.jobId, 'assemble', series) });
      return;
    }
    const toFlowJob = (child: FlowChild): FlowJob => {
      const childData = QUEUES[child.name].payload.parse(child.payload);
      return {
        name: child.name,
        queueName: QUEUES[child.name].name,
        data: traced(childData),
        prefix: bullPrefix(this.prefix),
        opts: { ...this.jobOptions(child.name), ...options, jobId: stageJobId(data.jobId, child.name, series, child.part), ignoreDependencyOnFailure: true },
        children: child.children?.map(toFlowJob),
      };
    };
    await this.flowProducer().add({
      name: 'assemble',
      queueName: QUEUES.assemble.name,
      data: traced(data),
      prefix: bullPrefix(this.prefix),
      opts: { ...this.jobOptions('assemble'), ...options, jobId: stageJobId(data.jobId, 'assemble', series) },
      children: children.map(toFlowJob),
    });
  }

  /**
   * Adds a large PDF's merge job (an extract job, part `merge`) as the parent of its slices
   * (extract jobs, part `slice-<first page>`). Ids are deterministic, so a re-delivered extract
   * re-adds nothing. A slice is retried alone (its own attempts); one that fails for good has
   * already failed the document (the runner records it), and fails its parent with it
   * (`failParentOnFailure`) instead of leaving it waiting for ever.
   */
  async addExtractSlices(merge: PayloadOf<'extract'>, slices: PayloadOf<'extract'>[], options: { priority?: number } = {}): Promise<void> {
    const data = QUEUES.extract.payload.parse(merge);
    const attributes = { [ATTR.queue]: 'extract', [ATTR.jobId]: data.jobId, [ATTR.tenant]: data.tenant, [ATTR.children]: slices.length };
    // As for assemble flows: the merge job and every slice carry the fan-out span's context.
    await inSpan(SPAN.fanOut, { kind: 'producer', attributes }, () => this.addSliceFlow(data, slices, options));
  }

  private async addSliceFlow(data: PayloadOf<'extract'>, slices: PayloadOf<'extract'>[], options: { priority?: number }): Promise<void> {
    const flows = this.flowProducer();
    await flows.add({
      name: 'extract',
      queueName: QUEUES.extract.name,
      data: traced(data),
      prefix: bullPrefix(this.prefix),
      opts: { ...this.jobOptions('extract'), ...options, jobId: stageJobId(data.jobId, 'extract', data.series, 'merge') },
      children: slices.map((slice) => {
        const childData = QUEUES.extract.payload.parse(slice);
        return {
          name: 'extract',
          queueName: QUEUES.extract.name,
          data: traced(childData),
          prefix: bullPrefix(this.prefix),
          opts: { ...this.jobOptions('extract'), ...options, jobId: stageJobId(data.jobId, 'extract', data.series, `slice-${childData.slice?.from ?? 0}`), failParentOnFailure: true },
        };
      }),
    });
  }

  all(): Queue[] {
    return (Object.keys(QUEUES) as QueueName[]).map((name) => this.queue(name));
  }

  /** Every queue an operator watches: the stages, their dead-letter queues and maintenance. */
  opsQueues(): Queue[] {
    const prefix = bullPrefix(this.prefix);
    this.extraQueues ??= [
      ...(Object.keys(QUEUES) as QueueName[]).map((name) => this.watched(new Queue(deadLetterQueueName(name), { connection: this.connection, prefix }))),
      this.watched(new Queue(MAINTENANCE_QUEUE, { connection: this.connection, prefix })),
      this.watched(new Queue(WEBHOOK_QUEUE, { connection: this.connection, prefix })),
      this.watched(new Queue(WEBHOOK_DLQ, { connection: this.connection, prefix })),
    ];
    return [...this.all(), ...this.extraQueues];
  }

  async close(): Promise<void> {
    await Promise.all([...[...this.queues.values(), ...(this.extraQueues ?? [])].map((q) => q.close()), this.flows?.close()]);
  }

  private flowProducer(): FlowProducer {
    if (!this.flows) {
      const created = this.watched(new FlowProducer({ connection: this.connection, prefix: bullPrefix(this.prefix) }));
      this.flows = created;
      // As for queue(): a FlowProducer whose setup failed is forgotten, not kept failing.
      created.waitUntilReady().catch(() => {
        if (this.flows === created) this.flows = undefined;
      });
    }
    return this.flows;
  }

  private jobOptions(name: QueueName): JobsOptions {
    return { ...QUEUES[name].jobOptions, ...this.options.overrides?.[name] };
  }
}

/**
 * The payload with the active span's trace context; unchanged when tracing is off here (a job that
 * already carries a context, e.g. a dead-letter replay, keeps it).
 */
function traced<T extends { trace?: TraceCarrier | undefined }>(data: T): T {
  const trace = currentTraceCarrier();
  return trace ? { ...data, trace } : data;
}
