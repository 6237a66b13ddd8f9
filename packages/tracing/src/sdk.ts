import { hostname } from 'node:os';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTracingEnabled } from './tracer.js';
import type { TracingHandle } from './setup.js';

/*
 * The OpenTelemetry SDK, loaded by setup.ts through a dynamic import only when an OTLP endpoint is
 * configured: a process without one never reads these modules (test/tracing/no-sdk.test.ts).
 */

/** Incubating semantic conventions, copied as their package advises rather than imported from its unstable entry point. */
const ATTR_HOST_NAME = 'host.name';
const ATTR_PROCESS_PID = 'process.pid';

/**
 * Registers a tracer provider (AsyncLocalStorage context, W3C Trace Context propagator) that
 * batches spans to `url` over OTLP/HTTP with JSON bodies (the exporter's other variables, such as
 * OTEL_EXPORTER_OTLP_HEADERS, are read by the exporter itself).
 */
export function startSdk(options: { serviceName: string; url: string }): TracingHandle {
  const exporter = new OTLPTraceExporter({ url: options.url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_HOST_NAME]: hostname(), [ATTR_PROCESS_PID]: process.pid }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  provider.register();
  setTracingEnabled(true);
  return {
    enabled: true,
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracingEnabled(false);
      // Exports every span still batched; BatchSpanProcessor bounds each export by its own timeout.
      await provider.shutdown();
    },
  };
}
