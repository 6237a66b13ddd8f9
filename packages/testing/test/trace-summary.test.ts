import { describe, expect, it } from '@jest/globals';
import { decodeOtlpJson, renderTimeTable, whereTheTimeGoes, type CollectedSpan } from '../src/index.js';

const span = (traceId: string, name: string, startMs: number, endMs: number): CollectedSpan => ({
  traceId: traceId.repeat(32),
  spanId: `${name.length}`.padStart(16, '0'),
  name,
  service: 'readpack-api',
  startMs,
  endMs,
  attributes: {},
  statusCode: 0,
});

describe('whereTheTimeGoes', () => {
  it('sums, ranks and shares each span name against the traces\' end-to-end time', () => {
    // Trace a: 0 → 100 ms; trace b: 1000 → 1300 ms. End to end: 400 ms in all.
    const spans = [span('a', 'upload', 0, 10), span('a', 'parse', 10, 60), span('a', 'state.terminal', 90, 100), span('b', 'upload', 1000, 1020), span('b', 'parse', 1020, 1270), span('b', 'state.terminal', 1290, 1300)];
    const breakdown = whereTheTimeGoes(spans);
    expect(breakdown.traces).toBe(2);
    expect(breakdown.endToEnd).toEqual({ totalMs: 400, p50Ms: 100, p99Ms: 300 });
    expect(breakdown.rows.map((r) => [r.name, r.count, r.totalMs, r.p50Ms, r.p99Ms, r.share])).toEqual([
      ['parse', 2, 300, 50, 250, 0.75],
      ['upload', 2, 30, 10, 20, 0.075],
      ['state.terminal', 2, 20, 10, 10, 0.05],
    ]);
    expect(whereTheTimeGoes(spans, { traceIds: new Set(['b'.repeat(32)]) }).endToEnd.totalMs).toBe(300);
    expect(renderTimeTable(breakdown).split('\n')).toContain('| `parse` | 2 | 300 | 50.0 | 250 | 75.0 % |');
  });
});

describe('decodeOtlpJson', () => {
  it('reads an OTLP/JSON export request: hex ids, nanosecond strings, typed attribute values, the resource\'s service', () => {
    const [decoded] = decodeOtlpJson({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'readpack-worker-ocr' } }, { key: 'process.pid', value: { intValue: 42 } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  parentSpanId: '00f067aa0ba902b7',
                  name: 'ocr.page',
                  startTimeUnixNano: '1764600000123456789',
                  endTimeUnixNano: '1764600000623456789',
                  attributes: [{ key: 'readpack.page', value: { intValue: '3' } }, { key: 'readpack.job.id', value: { stringValue: 'job_1' } }],
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(decoded).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      parentSpanId: '00f067aa0ba902b7',
      name: 'ocr.page',
      service: 'readpack-worker-ocr',
      pid: 42,
      startMs: 1764600000123.4568,
      endMs: 1764600000623.4568,
      attributes: { 'readpack.page': 3, 'readpack.job.id': 'job_1' },
      statusCode: 2,
    });
    expect(decoded!.endMs - decoded!.startMs).toBeCloseTo(500, 6);
    expect(() => decodeOtlpJson({ spans: [] })).toThrow(TypeError);
  });
});
