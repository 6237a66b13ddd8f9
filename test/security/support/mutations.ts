import fc from 'fast-check';
import yauzl from 'yauzl';
import { buildZip, type ZipEntryInput } from '@readpack/testing';

/** A corpus file to mutate. */
export interface Seed {
  name: string;
  data: Buffer;
}

/** One mutated document, and how it was made (printed when a case fails, to reproduce it). */
export interface Mutant {
  name: string;
  data: Buffer;
  recipe: string;
}

/** Positions and lengths are fractions of the file, so one plan fits any seed. */
type Mutation =
  | { kind: 'truncate'; seed: number; keep: number }
  | { kind: 'bitflip'; seed: number; flips: { at: number; bit: number }[] }
  | { kind: 'overwrite'; seed: number; at: number; bytes: number[] }
  | { kind: 'splice'; seed: number; donor: number; operations: SpliceOp[] };

type SpliceOp = { op: 'take'; entry: number } | { op: 'drop'; entry: number } | { op: 'duplicate'; entry: number } | { op: 'cut'; entry: number; keep: number } | { op: 'lie'; entry: number; factor: number };

/**
 * Uniform in [0, 1]. fast-check's doubles (and its biased integers) cluster at the edges, which
 * here would mostly mean empty files and broken magic numbers: rejected at upload, never parsed.
 */
const fraction = fc.noBias(fc.integer({ min: 0, max: 1_000_000 })).map((n) => n / 1_000_000);
/** Bytes a byte-level mutation leaves alone, so that most mutants still sniff as their type and reach a parser. */
const MAGIC = 8;

function mutation(seeds: number, zips: number): fc.Arbitrary<Mutation> {
  const seed = fc.nat({ max: seeds - 1 });
  const options: fc.Arbitrary<Mutation>[] = [
    fc.record({ kind: fc.constant('truncate' as const), seed, keep: fraction }),
    fc.record({ kind: fc.constant('bitflip' as const), seed, flips: fc.array(fc.record({ at: fraction, bit: fc.nat({ max: 7 }) }), { minLength: 1, maxLength: 64 }) }),
    fc.record({ kind: fc.constant('overwrite' as const), seed, at: fraction, bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 512 }) }),
  ];
  if (zips > 0) {
    const entry = fc.nat({ max: 63 });
    const op: fc.Arbitrary<SpliceOp> = fc.oneof(
      fc.record({ op: fc.constant('take' as const), entry }),
      fc.record({ op: fc.constant('drop' as const), entry }),
      fc.record({ op: fc.constant('duplicate' as const), entry }),
      fc.record({ op: fc.constant('cut' as const), entry, keep: fraction }),
      fc.record({ op: fc.constant('lie' as const), entry, factor: fc.constantFrom(0, 0.5, 2, 1000) }),
    );
    options.push(fc.record({ kind: fc.constant('splice' as const), seed: fc.nat({ max: zips - 1 }), donor: fc.nat({ max: zips - 1 }), operations: fc.array(op, { minLength: 1, maxLength: 4 }) }));
  }
  return fc.oneof(...options);
}

/** The entries of a ZIP, inflated (corpus files are small). */
export async function zipEntries(data: Buffer): Promise<ZipEntryInput[]> {
  const zip = await yauzl.fromBufferPromise(data);
  const entries: ZipEntryInput[] = [];
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of (await zip.openReadStreamPromise(entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
    entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
  }
  zip.close();
  return entries;
}

function splice(base: ZipEntryInput[], donor: ZipEntryInput[], operations: SpliceOp[]): Buffer {
  const entries = [...base];
  const pick = <T>(list: T[], index: number): T | undefined => list[index % Math.max(1, list.length)];
  for (const o of operations) {
    // The first entry ([Content_Types].xml) stays: without it the archive sniffs as a plain ZIP (415).
    const at = 1 + (o.entry % Math.max(1, entries.length - 1));
    if (o.op === 'take') {
      // A donor's part under the base's name: a document.xml from another document, a sheet in a Word file…
      const part = pick(donor, o.entry);
      if (part && entries[at]) entries[at] = { name: entries[at]!.name, data: part.data };
    } else if (o.op === 'drop') entries.splice(at, 1);
    else if (o.op === 'duplicate' && entries[at]) entries.push({ ...entries[at]! });
    else if (o.op === 'cut' && entries[at]) {
      const data = Buffer.from(entries[at]!.data);
      entries[at] = { name: entries[at]!.name, data: data.subarray(0, Math.floor(data.length * o.keep)) };
    } else if (o.op === 'lie' && entries[at]) {
      const size = Buffer.from(entries[at]!.data).length;
      entries[at] = { ...entries[at]!, declaredSize: Math.floor(size * o.factor) };
    }
  }
  return buildZip(entries);
}

/**
 * `count` mutants of `seeds`, the same ones for the same `seed` (fast-check's generator): byte-level
 * truncations, bit flips and overwrites of any file, and for DOCX/XLSX, archives rebuilt from
 * spliced, dropped, duplicated, cut or mis-sized entries.
 */
export async function mutants(seeds: Seed[], count: number, seed: number): Promise<Mutant[]> {
  const zipSeeds = seeds.filter((s) => /\.(docx|xlsx)$/.test(s.name));
  const entriesOf = new Map<string, ZipEntryInput[]>();
  for (const s of zipSeeds) entriesOf.set(s.name, await zipEntries(s.data));
  const plans = fc.sample(mutation(seeds.length, zipSeeds.length), { seed, numRuns: count });
  return plans.map((plan, index) => {
    const label = `m${String(index).padStart(3, '0')}`;
    if (plan.kind === 'splice') {
      const base = zipSeeds[plan.seed]!;
      const donor = zipSeeds[plan.donor]!;
      const data = splice(entriesOf.get(base.name)!, entriesOf.get(donor.name)!, plan.operations);
      return { name: `${label}-${base.name}`, data, recipe: `splice ${base.name} with ${donor.name}: ${JSON.stringify(plan.operations)}` };
    }
    const source = seeds[plan.seed]!;
    const data = Buffer.from(source.data);
    let mutated: Buffer;
    const position = (f: number) => MAGIC + Math.floor(f * Math.max(0, data.length - MAGIC - 1));
    if (plan.kind === 'truncate') mutated = data.subarray(0, position(plan.keep));
    else if (plan.kind === 'bitflip') {
      for (const flip of plan.flips) {
        const at = position(flip.at);
        data[at] = data[at]! ^ (1 << flip.bit);
      }
      mutated = data;
    } else {
      const at = position(plan.at);
      Buffer.from(plan.bytes).copy(data, at);
      mutated = data;
    }
    return { name: `${label}-${source.name}`, data: mutated, recipe: `${plan.kind} ${source.name}: ${JSON.stringify(plan).slice(0, 300)}` };
  });
}
