import { STAGES, type Stage } from '@readpack/config';
import { uniqueName } from '@readpack/testing';
import { findFreePort } from '../../apps/supervisor/src/redis-server.js';
import { waitForHealthy } from './fresh-http.js';
import { builtScript, startProcess, type ServiceProcess } from './service-process.js';
import { serviceEnv } from './env.js';

/**
 * Readpack's own entry points as separate processes, the way PM2 or a container runs them.
 * `vars` are the Readpack variables of the process; nothing else leaks in from the suite.
 */

export function startApiProcess(vars: Record<string, string>): Promise<ServiceProcess> {
  return startProcess(process.execPath, [builtScript('apps/api/dist/main.js')], { env: serviceEnv(vars) });
}

export function startConsumerProcess(stage: Stage, vars: Record<string, string>): Promise<ServiceProcess> {
  return startProcess(process.execPath, [builtScript('apps/worker/dist/main.js'), stage], { env: serviceEnv(vars) });
}

/**
 * A deployment as separate processes on `redisUrl`: one API and one consumer per stage, under a
 * fresh key prefix. Each process is pushed onto `into` as it starts, so the caller's teardown stops
 * the ones that started even when a later one fails. Resolves with the API's base URL once healthy.
 */
export async function startProcessDeployment(options: { redisUrl: string; label: string; dataDir: string; into: ServiceProcess[] }): Promise<{ base: string }> {
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const vars = {
    REDIS_URL: options.redisUrl,
    READPACK_PREFIX: uniqueName(options.label),
    DATA_DIR: options.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_MS: '5000',
  };
  options.into.push(await startApiProcess(vars));
  for (const stage of STAGES) options.into.push(await startConsumerProcess(stage, vars));
  await waitForHealthy(base, { timeoutMs: 60_000, describe: () => options.into.map((p) => p.outputTail()).join('\n') });
  return { base };
}
