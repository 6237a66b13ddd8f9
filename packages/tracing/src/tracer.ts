import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { SpanAttributes, SpanName } from './spans.js';

/**
 * The hot-path side of tracing: only `@opentelemetry/api` is imported here. Until startTracing
 * has installed an SDK, every helper returns after one flag check, without touching the API's
 * no-op tracer (bench/tracing.ts measures both).
 */
const active = { enabled: false };

/** Set by the SDK setup (sdk.ts) once its provider is registered, and cleared at shutdown. */
export function setTracingEnabled(enabled: boolean): void {
  active.enabled = enabled;
}

export function tracingEnabled(): boolean {
  return active.enabled;
}

const tracer = () => trace.getTracer('readpack');

/** A span's place in its trace, as W3C Trace Context carries it between processes (in BullMQ job data). */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

export interface SpanOptions {
  attributes?: SpanAttributes;
  kind?: 'server' | 'producer' | 'consumer' | 'internal';
  /** The parent; default: the active span. */
  parent?: Context;
}

const KINDS = { server: SpanKind.SERVER, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER, internal: SpanKind.INTERNAL } as const;

/**
 * Runs `work` inside a span that is active for everything it awaits (so nested spans and the
 * context injected into enqueued jobs hang below it), and ends it however `work` ends. A thrown
 * error marks the span failed and is rethrown unchanged.
 */
export function inSpan<T>(name: SpanName, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!active.enabled) return work(undefined);
  const parent = options.parent ?? context.active();
  return tracer().startActiveSpan(name, { attributes: options.attributes, kind: KINDS[options.kind ?? 'internal'] }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A span whose work is not one function call (an HTTP request seen from middleware): the caller
 * ends it. Undefined when tracing is off.
 */
export function startSpan(name: SpanName, options: SpanOptions): Span | undefined {
  if (!active.enabled) return undefined;
  return tracer().startSpan(name, { attributes: options.attributes, kind: KINDS[options.kind ?? 'internal'] }, options.parent ?? context.active());
}

/**
 * A span of something that already happened, such as the time a job waited in its queue, with
 * its real start and end (epoch milliseconds).
 */
export function recordSpan(name: SpanName, options: SpanOptions & { startMs: number; endMs: number }): void {
  if (!active.enabled) return;
  const span = tracer().startSpan(name, { attributes: options.attributes, kind: KINDS[options.kind ?? 'internal'], startTime: options.startMs }, options.parent ?? context.active());
  span.end(Math.max(options.startMs, options.endMs));
}

/** Runs `work` with `span` as the active span (a span from startSpan, over work that crosses middleware). */
export function withSpan<T>(span: Span | undefined, work: () => T): T {
  if (!span) return work();
  return context.with(trace.setSpan(context.active(), span), work);
}

export function markFailed(span: Span | undefined, error: unknown): void {
  if (!span) return;
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
}

/** The active span's context to store in a job's data; undefined when tracing is off. */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (!active.enabled) return undefined;
  const fields: Record<string, string> = {};
  propagation.inject(context.active(), fields);
  if (!fields.traceparent) return undefined;
  return fields.tracestate ? { traceparent: fields.traceparent, tracestate: fields.tracestate } : { traceparent: fields.traceparent };
}

/**
 * The context a job's spans continue: its carrier's, or none (a new trace) for a job enqueued
 * while tracing was off. Not the consumer's active context: a job belongs to its document's trace.
 */
export function contextFromCarrier(carrier: TraceCarrier | undefined): Context {
  if (!active.enabled || !carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Adds identifiers learnt along the way (the job id once the upload is admitted) to the active span. */
export function setActiveAttributes(attributes: SpanAttributes): void {
  if (!active.enabled) return;
  trace.getSpan(context.active())?.setAttributes(attributes);
}

/** The active span's ids, for log lines; undefined when tracing is off or no span is active. */
export function activeSpanIds(): { traceId: string; spanId: string } | undefined {
  if (!active.enabled) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
