/**
 * The chaos test's knobs. The default is the short form that runs in `npm test`; CHAOS_LONG=1
 * (`npm run test:chaos`) is the long form. Each variable below overrides either form.
 *
 *   CHAOS_DOCS               distinct documents (short 40, long 120)
 *   CHAOS_SECONDS            the most the controller keeps killing, from the first upload; it stops earlier
 *                            once every job is terminal (short 40, long 100)
 *   CHAOS_UPLOAD_SECONDS     uploads are spread over this window (short 30, long 85)
 *   CHAOS_KILL_MIN_MS / _MAX_MS  pause between two kills, drawn uniformly (2000 / 4000)
 *   CHAOS_CONSUMERS          consumer processes per stage (2)
 *   CHAOS_SEED               seed of the run's randomness (upload order, victims, pauses); in the test's name.
 *                            Timing is not seeded: a seed repeats the choices, not the interleaving.
 *   CHAOS_DUMP               a file to write the run's uploads, kills, records and consumer logs to (JSON)
 */
export interface ChaosSettings {
  long: boolean;
  docs: number;
  chaosMs: number;
  uploadWindowMs: number;
  killMinMs: number;
  killMaxMs: number;
  consumersPerStage: number;
  seed: number;
  dumpTo: string | undefined;
}

export function chaosSettings(env: NodeJS.ProcessEnv = process.env): ChaosSettings {
  const long = env.CHAOS_LONG === '1';
  const num = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) throw new Error(`${name}=${raw}: give a number ≥ ${min}`);
    return value;
  };
  const settings: ChaosSettings = {
    long,
    docs: num('CHAOS_DOCS', long ? 120 : 40, 1),
    chaosMs: num('CHAOS_SECONDS', long ? 100 : 40, 1) * 1_000,
    uploadWindowMs: num('CHAOS_UPLOAD_SECONDS', long ? 85 : 30, 0) * 1_000,
    killMinMs: num('CHAOS_KILL_MIN_MS', 2_000, 100),
    killMaxMs: num('CHAOS_KILL_MAX_MS', 4_000, 100),
    consumersPerStage: num('CHAOS_CONSUMERS', 2, 2),
    seed: num('CHAOS_SEED', Math.floor(Math.random() * 2 ** 31), 0),
    dumpTo: env.CHAOS_DUMP || undefined,
  };
  if (settings.killMaxMs < settings.killMinMs) throw new Error('CHAOS_KILL_MAX_MS must not be below CHAOS_KILL_MIN_MS');
  return settings;
}

/** mulberry32: a tiny seeded PRNG, so a failing run can be repeated with its CHAOS_SEED. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * Settings of the API these tests run inside the test process.
 * - It shares its event loop with the test's own polling (and, in the calm run, with in-process
 *   consumers) on a two-core machine that runs other suites too. Its fail-fast Redis timeout (1 s
 *   by default) would then measure the test's load, not Redis; the chaos is about consumers dying,
 *   so the API gets more patience. An outage still answers 503 at once: with no offline queue, a
 *   command on a lost connection fails without waiting for any timeout.
 * - One tenant uploads everything here, faster than the per-tenant limits allow (120 uploads a
 *   minute, 200 active jobs): those limits have tests of their own; here they would only answer 429.
 */
export const IN_PROCESS_API = { REDIS_COMMAND_TIMEOUT_MS: '5000', UPLOAD_RATE_PER_MINUTE: '100000', MAX_ACTIVE_JOBS_PER_TENANT: '100000' };
