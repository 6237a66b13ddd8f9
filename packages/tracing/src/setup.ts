import type { Stage } from '@readpack/config';

/** Where spans go: OTLP/HTTP endpoints as OpenTelemetry's own variables name them (packages/config). */
export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `<endpoint>/v1/traces`. */
  endpoint?: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full traces URL, used as is (wins over `endpoint`). */
  tracesEndpoint?: string | undefined;
}

export interface TracingHandle {
  enabled: boolean;
  /** Exports every finished span now. */
  flush(): Promise<void>;
  /** Exports what is left and stops recording: the last step of a graceful exit. */
  shutdown(): Promise<void>;
}

const OFF: TracingHandle = { enabled: false, flush: async () => undefined, shutdown: async () => undefined };

/**
 * `readpack-api`, or `readpack-worker-<stage>` for a consumer process; a process that consumes
 * several stages is `readpack-worker-<stage>+<stage>` (apps/worker/src/consumer-group.ts).
 */
export function serviceName(process: 'api' | readonly (Stage | 'webhook')[]): string {
  return process === 'api' ? 'readpack-api' : `readpack-worker-${process.join('+')}`;
}

/** The URL spans are posted to, or undefined: tracing off. */
export function tracesUrl(settings: TracingSettings): string | undefined {
  if (settings.tracesEndpoint) return settings.tracesEndpoint;
  if (settings.endpoint) return `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Starts tracing for this process when an endpoint is configured. Otherwise nothing is loaded and
 * every span helper (tracer.ts) returns after one flag check: tracing off costs nothing.
 */
export async function startTracing(settings: TracingSettings, service: string): Promise<TracingHandle> {
  const url = tracesUrl(settings);
  if (!url) return OFF;
  const { startSdk } = await import('./sdk.js');
  return startSdk({ serviceName: service, url });
}
