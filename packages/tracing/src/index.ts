export { SPAN, ATTR, stageSpan, type SpanName, type StageSpanName, type FixedSpanName, type AttributeName, type SpanAttributes } from './spans.js';
export {
  inSpan,
  startSpan,
  recordSpan,
  withSpan,
  markFailed,
  currentTraceCarrier,
  contextFromCarrier,
  activeSpanIds,
  setActiveAttributes,
  tracingEnabled,
  type TraceCarrier,
  type SpanOptions,
} from './tracer.js';
export { startTracing, serviceName, tracesUrl, type TracingHandle, type TracingSettings } from './setup.js';
export type { Span } from '@opentelemetry/api';
