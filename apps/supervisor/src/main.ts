import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, EXIT_CONFIG_ERROR, loadConfig, type Config, type ConsumerRole } from '@readpack/config';
import { createLogger } from '@readpack/logging';
import { acquirePidLock } from './pid-lock.js';
import { ProcessSupervisor } from './process-supervisor.js';
import { ensureRedisServer, findFreePort, privateRedisSpec, stopStaleRedis, waitForRedis } from './redis-server.js';
import { libreOfficePresent, planConversion } from './conversion.js';
import { apiEntry, consumerCounts, planConsumerProcesses } from './process-plan.js';
import { aptInstallCommand, ensureSystemPackages, hasLanguageData, packagesOf, redisServerRequirement, runtimeRequirements } from './system-packages.js';

/**
 * `npm start`: everything on one machine, the way PM2 would run it, without PM2 — a private
 * Redis (unless REDIS_URL is given), the API (one process, or a cluster of API_INSTANCES) and the
 * consumers of every stage that has work to do, light ones sharing a process (process-plan.ts).
 */

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const API_CLUSTER = join(REPO_ROOT, 'apps/api/dist/cluster.js');
const API_MAIN = join(REPO_ROOT, 'apps/api/dist/main.js');
const WORKER_MAIN = join(REPO_ROOT, 'apps/worker/dist/main.js');

/** Beyond the apps' own grace: the API cluster needs a moment after its workers to exit itself. */
const STOP_MARGIN_MS = 5_000;
/** A large AOF takes a while to load; Redis answers -LOADING meanwhile. */
const REDIS_START_TIMEOUT_MS = 120_000;

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(EXIT_CONFIG_ERROR);
    }
    throw err;
  }
}

const config = readConfig();
const logger = createLogger({ component: 'supervisor', level: config.logLevel, format: config.logFormat });
const supervisor = new ProcessSupervisor({ logger, stopTimeoutMs: config.shutdownGraceMs + STOP_MARGIN_MS });
const shutdownRequested = new AbortController();
const cleanups: (() => void)[] = [];

// Children live in process groups of their own, so nothing else would stop them if this process
// died: take them down with it. A no-op after an orderly shutdown.
process.on('exit', () => {
  supervisor.kill();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * A repeat this soon is the same Ctrl-C arriving twice, not a second one: the terminal signals
 * its whole foreground group, and npm (`npm start`) also forwards the SIGINT to its child.
 */
const REPEAT_SIGNAL_WINDOW_MS = 1_000;
let firstSignalAt = 0;

function onSignal(signal: NodeJS.Signals): void {
  if (shutdownRequested.signal.aborted) {
    if (Date.now() - firstSignalAt < REPEAT_SIGNAL_WINDOW_MS) return;
    logger.warn('second signal: killing every process now', { signal });
    supervisor.kill();
    process.exit(130);
  }
  firstSignalAt = Date.now();
  shutdownRequested.abort();
  logger.info('shutting down: stopping apps, then Redis (press Ctrl-C again to kill everything)', { signal });
  void supervisor.stop().then(() => {
    logger.info('all processes stopped');
    process.exit(0);
  });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

async function fail(message: string, meta: Record<string, unknown> = {}, exitCode = 1): Promise<never> {
  logger.error(message, meta);
  await supervisor.stop();
  process.exit(exitCode);
}

// A child that refuses its configuration (the API cluster checks keys, tokens and URLs before it
// forks) would refuse it again on every restart: stop everything now; its message is above.
supervisor.on('exit', (event) => {
  if (event.code === EXIT_CONFIG_ERROR && !supervisor.isStopping) {
    void fail(`${event.name} refused its configuration (see the message above); stopping`, { process: event.name }, EXIT_CONFIG_ERROR);
  }
});

/**
 * The Debian packages the service uses, installed with apt-get when running as root. Redis (when
 * private) is a must: startPrivateRedis fails without it. OCR language data and a Chinese font are
 * best effort (see runtimeRequirements): missing, they cost a warning, not the start. One apt-get
 * run covers everything on a fresh machine.
 */
async function ensureSystemDependencies(): Promise<void> {
  const optional = runtimeRequirements(config.ocr.tessdataDir);
  const required = config.redis.explicit ? [] : [redisServerRequirement()];
  const result = await ensureSystemPackages([...required, ...optional], { log: (line) => logger.info(line), signal: shutdownRequested.signal });
  if (result.ok) {
    if (result.installed.length > 0) logger.info('installed system packages', { packages: result.installed });
  } else {
    // A missing Redis is retried and reported on its own by startPrivateRedis.
    const missing = optional.filter((r) => result.missing.includes(r));
    if (missing.length > 0) {
      logger.warn('starting without some system packages: the jobs that need them will fail or degrade', {
        missing: missing.map((r) => `${r.packages.join(' ')}: ${r.purpose}`),
        reason: result.reason,
        install: aptInstallCommand(packagesOf(missing), process.getuid?.() === 0),
      });
    }
  }
  const dir = config.ocr.tessdataDir;
  if (dir) {
    // The OCR consumer reads TESSDATA_DIR only: apt-get cannot help there, say what is missing.
    const absent = ['eng', 'chi_sim'].filter((lang) => !hasLanguageData(lang, dir));
    if (absent.length > 0) logger.warn('TESSDATA_DIR lacks OCR language data: OCR jobs in these languages will fail', { tessdataDir: dir, languages: absent });
  }
}

/** Convert consumers to start, with the one line that says conversion is off when it is (conversion.ts). */
function convertConsumers(): number {
  const plan = planConversion({
    present: libreOfficePresent(config.convert.sofficePath),
    wanted: config.stages.convert.consumers,
    explicit: config.convert.consumersExplicit,
    root: process.getuid?.() === 0,
  });
  if (plan.log) logger[plan.log.level](plan.log.message, { install: plan.log.install, sofficePath: config.convert.sofficePath });
  return plan.consumers;
}

async function startPrivateRedis(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const ensured = await ensureRedisServer({ log: (line) => logger.info(line), signal: shutdownRequested.signal });
  if (shutdownRequested.signal.aborted) return undefined;
  if (!ensured.ok) {
    console.error(`${ensured.reason}. Install it with:\n${ensured.command}`);
    process.exit(1);
  }

  const dir = resolve(config.dataDir, 'redis');
  const port = await findFreePort();
  const spec = privateRedisSpec({ binary: ensured.binary, port, dir, env });
  const lock = acquirePidLock(join(dir, 'supervisor.pid'));
  if (!lock.acquired) {
    console.error(`Another npm start (pid ${lock.heldBy}) is using ${dir}. Stop it first, or give this one another DATA_DIR.`);
    process.exit(1);
  }
  cleanups.push(lock.release);
  await stopStaleRedis(dir, (line) => logger.warn(line));

  // A Redis that dies before answering (corrupt AOF, port taken) would only be restarted in a
  // loop: give up on the first death during start-up and show why.
  const diedDuringStart = new AbortController();
  const onExit = (event: { name: string; code: number | null; signal: NodeJS.Signals | null }) => {
    if (event.name === spec.name) diedDuringStart.abort(new Error(`redis-server exited (code ${event.code}, signal ${event.signal}) before answering PING; see its output above`));
  };
  if (shutdownRequested.signal.aborted) return undefined;
  supervisor.on('exit', onExit);
  supervisor.start(spec);
  try {
    await waitForRedis(port, { timeoutMs: REDIS_START_TIMEOUT_MS, signal: AbortSignal.any([shutdownRequested.signal, diedDuringStart.signal]) });
  } catch (err) {
    if (shutdownRequested.signal.aborted) return undefined;
    return fail('private Redis did not start', { error: (err as Error).message, dir, port });
  } finally {
    supervisor.off('exit', onExit);
  }
  logger.info('private Redis is up', { port, dir });
  const url = `redis://127.0.0.1:${port}`;
  // Operator tools (`npm run ops`) find this deployment's Redis here when REDIS_URL is unset.
  await writeFile(join(dir, 'redis.url'), `${url}\n`);
  return url;
}

async function main(): Promise<void> {
  for (const script of [API_CLUSTER, API_MAIN, WORKER_MAIN]) {
    if (!existsSync(script)) {
      console.error(`${script} is missing: run \`npm run build\` first (\`npm start\` does).`);
      process.exit(1);
    }
  }
  // Absolute, so every child agrees on it whatever its own working directory.
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: resolve(config.dataDir) };
  // Decided before anything starts: a contradictory request stops here, with nothing to undo.
  const counts = consumerPlanCounts();
  const consumers = planConsumerProcesses(counts, config.sharedProcessStages);
  await ensureSystemDependencies();
  if (shutdownRequested.signal.aborted) return;
  if (!config.redis.explicit) {
    const url = await startPrivateRedis(env);
    if (!url) return;
    env.REDIS_URL = url;
    env.REDIS_MANAGED = 'true';
  }
  if (shutdownRequested.signal.aborted) return;

  supervisor.start({ name: 'api', command: process.execPath, args: [join(REPO_ROOT, apiEntry(config.http.apiInstances))], env, ipc: true, finalExitCodes: [EXIT_CONFIG_ERROR] });
  for (const consumer of consumers) {
    supervisor.start({
      name: consumer.name,
      command: process.execPath,
      // One argument per role: `ps` shows what each process consumes.
      args: [WORKER_MAIN, ...consumer.roles],
      ipc: true,
      finalExitCodes: [EXIT_CONFIG_ERROR],
      env,
    });
  }
  logger.info('supervising', {
    redis: config.redis.explicit ? 'external' : 'private',
    apiInstances: config.http.apiInstances,
    consumers: counts,
    processes: consumers.map((c) => `${c.name}: ${c.roles.join(',')}`),
  });
}

/** Consumers per role; a contradictory request (mineru without MINERU_URL) stops the start like any configuration error. */
function consumerPlanCounts(): Record<ConsumerRole, number> {
  try {
    return consumerCounts(config, convertConsumers());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(EXIT_CONFIG_ERROR);
    }
    throw err;
  }
}

main().catch((err: unknown) => fail('supervisor failed to start', { error: err instanceof Error ? err.stack : String(err) }));
