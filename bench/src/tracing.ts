/**
 * `npm run bench:tracing`: what tracing costs on the hot path. Off (no OTLP endpoint), every
 * span helper returns after one flag check: measured against the bare call and against the
 * OpenTelemetry API's own no-op tracer (what instrumented code costs without our check). On, the
 * same span with the SDK registered and its OTLP/HTTP exporter batching to a local receiver.
 * Rounds are interleaved; each figure is the median over rounds of ns per call.
 *
 * Results go to the `bench:tracing` section of docs/benchmarks.md.
 */
import { loadavg } from 'node:os';
import { trace } from '@opentelemetry/api';
import { startOtlpReceiver } from '@readpack/testing';
import { ATTR, currentTraceCarrier, inSpan, SPAN, startTracing } from '@readpack/tracing';
import { cleanups, describeMachine, runBench, writeBenchSection } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS_OFF = Number(process.env.BENCH_CALLS ?? 1_000_000);
const CALLS_ON = Math.max(1, Math.floor(CALLS_OFF / 20));

const work = async () => 1;
const attributes = () => ({ [ATTR.jobId]: 'job_0123456789abcdef', [ATTR.stage]: 'extract', [ATTR.page]: 3 });

interface Case {
  name: string;
  calls: number;
  run: () => Promise<unknown> | unknown;
}

async function nsPerCall(c: Case): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < c.calls; i++) await c.run();
  return Number(process.hrtime.bigint() - started) / c.calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(cases: Case[]): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) await nsPerCall({ ...c, calls: Math.ceil(c.calls / 10) }); // warm-up: JIT
  for (let round = 0; round < ROUNDS; round++) for (const c of cases) samples.get(c.name)!.push(await nsPerCall(c));
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

const ns = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const noopTracer = trace.getTracer('readpack-bench');
  const off = await measure([
    { name: 'bare', calls: CALLS_OFF, run: () => work() },
    { name: 'inSpan off', calls: CALLS_OFF, run: () => inSpan(SPAN.parse, { attributes: attributes() }, work) },
    {
      name: 'api no-op',
      calls: CALLS_OFF,
      run: () =>
        noopTracer.startActiveSpan(SPAN.parse, { attributes: attributes() }, async (span) => {
          try {
            return await work();
          } finally {
            span.end();
          }
        }),
    },
    { name: 'carrier off', calls: CALLS_OFF, run: () => currentTraceCarrier() },
  ]);

  const receiver = await startOtlpReceiver();
  cleanups.push(() => receiver.close());
  const tracing = await startTracing({ endpoint: receiver.url }, 'readpack-bench');
  let made = 0;
  const on = await measure([
    { name: 'bare', calls: CALLS_ON, run: () => work() },
    { name: 'inSpan on', calls: CALLS_ON, run: () => (made++, inSpan(SPAN.parse, { attributes: attributes() }, work)) },
    { name: 'carrier on', calls: CALLS_ON, run: () => (made++, inSpan(SPAN.enqueue, {}, async () => currentTraceCarrier())) },
  ]);
  await tracing.shutdown();
  const exported = receiver.spans().length;
  const loadAfter = loadavg()[0]!;

  const bare = off.get('bare')!;
  const rows = [
    ['bare `await work()`', 'off', bare, 0],
    ['`inSpan(…)` (Readpack helper, tracing off)', 'off', off.get('inSpan off')!, off.get('inSpan off')! - bare],
    ['`tracer.startActiveSpan(…)` on the API\'s no-op tracer', 'off', off.get('api no-op')!, off.get('api no-op')! - bare],
    ['`await currentTraceCarrier()` (what every enqueue calls)', 'off', off.get('carrier off')!, off.get('carrier off')! - bare],
    ['bare `await work()`', 'on', on.get('bare')!, 0],
    ['`inSpan(…)`, SDK + OTLP/HTTP exporter batching to a local receiver', 'on', on.get('inSpan on')!, on.get('inSpan on')! - on.get('bare')!],
    ['`inSpan(…)` + `currentTraceCarrier()` (an enqueue)', 'on', on.get('carrier on')!, on.get('carrier on')! - on.get('bare')!],
  ] as const;
  const table = ['| call | tracing | ns per call | ns over the bare call |', '| --- | --- | ---: | ---: |', ...rows.map(([what, mode, value, over]) => `| ${what} | ${mode} | ${ns(value)} | ${ns(over)} |`)];
  const offCost = off.get('inSpan off')! - bare;
  const noopCost = off.get('api no-op')! - bare;
  const onCost = on.get('inSpan on')! - on.get('bare')!;
  const bareOn = on.get('bare')!;
  const body = [
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${describeMachine()}. Load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end.`,
    `${ROUNDS} interleaved rounds of ${CALLS_OFF.toLocaleString('en')} calls (tracing off) and ${CALLS_ON.toLocaleString('en')} calls (tracing on) in one process; medians of ns per call.`,
    `"Bare" is an \`async\` function awaited in a loop; every span carries three attributes, as the stage spans do.`,
    '',
    ...table,
    '',
    `Tracing off, a span costs ${ns(offCost)} ns over the bare call through Readpack's helper, against ${ns(noopCost)} ns through the OpenTelemetry API's no-op tracer` +
      `${noopCost > 0 && offCost < noopCost ? ` (the flag check saves ${ns(noopCost - offCost)} ns)` : ''}; no SDK module is loaded (test/tracing/no-sdk.test.ts).`,
    `Tracing on, the bare call took ${ns(bareOn)} ns instead of ${ns(bare)} (${(bareOn / bare).toFixed(1)}×; measured after the off cases, not interleaved with them)` +
      (bareOn / bare > 1.5 ? ': the SDK registers an AsyncLocalStorage context manager, whose promise hooks make every `await` of the process dearer.' : '.'),
    `A span then costs ${(onCost / 1000).toFixed(1)} µs more than that bare call (the receiver, parsing the exports, runs in the same process); the receiver got ${exported.toLocaleString('en')} of the ${made.toLocaleString('en')} spans made (the batch processor drops spans past its queue of 2,048 when a tight loop outruns the exporter; a job makes a few dozen).`,
  ].join('\n');
  writeBenchSection('tracing', body);
}

await runBench(main);
