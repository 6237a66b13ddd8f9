import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A span as an OTLP/HTTP receiver saw it: ids in hex, times in epoch milliseconds (fractional),
 * the service that sent it (its resource's `service.name`) and its own attributes.
 */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  service: string;
  /** The sending process's `process.pid` resource attribute. */
  pid?: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

/** A local OTLP/HTTP trace receiver, for tests and benchmarks. */
export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (`POST <url>/v1/traces`). */
  url: string;
  spans(): CollectedSpan[];
  /** Export requests refused (wrong path, content type or body), so a test can assert there were none. */
  rejected(): { status: number; reason: string }[];
  close(): Promise<void>;
}

/*
 * OTLP/HTTP with JSON bodies, as the OpenTelemetry protocol specification defines them
 * (ExportTraceServiceRequest: resourceSpans → scopeSpans → spans; trace and span ids as hex
 * strings; times as nanosecond integers, which JSON may carry as strings; attributes as
 * {key, value: AnyValue}). Protobuf bodies are refused with 415, as a JSON-only receiver should.
 */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  status?: { code?: number };
}
interface ExportRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: AnyValue | undefined): string | number | boolean | undefined {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.doubleValue;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v = valueOf(value);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Nanoseconds (a 64-bit integer, possibly as a string) to fractional milliseconds without losing the sub-millisecond part. */
function nanosToMs(nanos: string | number): number {
  const big = BigInt(typeof nanos === 'number' ? Math.round(nanos) : nanos);
  return Number(big / 1_000_000n) + Number(big % 1_000_000n) / 1e6;
}

/** Reads one ExportTraceServiceRequest into spans; throws on a body that is not one. */
export function decodeOtlpJson(body: unknown): CollectedSpan[] {
  const request = body as ExportRequest;
  if (typeof request !== 'object' || request === null || !Array.isArray(request.resourceSpans)) throw new TypeError('not an ExportTraceServiceRequest');
  const spans: CollectedSpan[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = String(resource['service.name'] ?? '');
    const pid = typeof resource['process.pid'] === 'number' ? resource['process.pid'] : undefined;
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        if (!/^[0-9a-f]{32}$/.test(span.traceId) || !/^[0-9a-f]{16}$/.test(span.spanId)) throw new TypeError(`bad ids in span ${span.name}`);
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          service,
          ...(pid === undefined ? {} : { pid }),
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return spans;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: CollectedSpan[] = [];
  const rejected: { status: number; reason: string }[] = [];
  const refuse = (res: ServerResponse, status: number, reason: string) => {
    rejected.push({ status, reason });
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ code: status, message: reason }));
  };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') return refuse(res, 404, `${req.method} ${req.url}`);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type !== 'application/json') return refuse(res, 415, `content type ${type}`);
    readBody(req).then(
      (body) => {
        try {
          spans.push(...decodeOtlpJson(JSON.parse(body.toString('utf8'))));
        } catch (error) {
          return refuse(res, 400, error instanceof Error ? error.message : String(error));
        }
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      (error: unknown) => refuse(res, 400, String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    rejected: () => [...rejected],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
