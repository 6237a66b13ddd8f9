import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot, startOtlpReceiver } from '@readpack/testing';
import { serviceEnv } from '../support/env.js';

/*
 * "Off and costless": without an OTLP endpoint a process never loads the OpenTelemetry SDK. A
 * child process registers a module resolve hook that reports every module the ESM loader
 * resolves, imports the built @readpack/tracing, starts tracing as a Readpack process does, runs
 * a span, injects a context; then it lists what was resolved, plus the CommonJS modules loaded.
 * The same script with an endpoint set is the control: there the SDK must show up.
 */
const SCRIPT = `
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on('message', (url) => resolved.push(url));
port1.unref();
const hook = 'export async function initialize({ port }) { globalThis.port = port; }' +
  'export async function resolve(specifier, context, next) { const r = await next(specifier, context); globalThis.port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
const tracing = await import('@readpack/tracing');
const handle = await tracing.startTracing({ endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT }, 'readpack-worker-extract');
await tracing.inSpan(tracing.SPAN.parse, {}, async () => tracing.currentTraceCarrier());
await handle.shutdown();
await new Promise((r) => setTimeout(r, 200));
const cjs = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(JSON.stringify({ enabled: handle.enabled, modules: [...resolved, ...cjs] }));
`;

async function loadedModules(endpoint: string | undefined): Promise<{ enabled: boolean; modules: string[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: repoRoot(),
    env: serviceEnv(endpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {}),
  });
  return JSON.parse(stdout) as { enabled: boolean; modules: string[] };
}

const otel = (modules: string[]) => [...new Set(modules.map((m) => /node_modules\/(@opentelemetry\/[^/]+)\//.exec(m)?.[1]).filter((m): m is string => m !== undefined))].sort();

describe('tracing off', () => {
  it('loads @opentelemetry/api only; with an endpoint set the same script loads the SDK and exporter', async () => {
    const off = await loadedModules(undefined);
    expect(off.enabled).toBe(false);
    expect(off.modules.some((m) => m.includes('/packages/tracing/dist/index.js'))).toBe(true);
    expect(otel(off.modules)).toEqual(['@opentelemetry/api']);

    const receiver = await startOtlpReceiver();
    try {
      const on = await loadedModules(receiver.url);
      expect(on.enabled).toBe(true);
      expect(otel(on.modules)).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources']));
      // The control's span reached the receiver at shutdown.
      expect(receiver.spans().map((s) => [s.name, s.service])).toEqual([['parse', 'readpack-worker-extract']]);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
