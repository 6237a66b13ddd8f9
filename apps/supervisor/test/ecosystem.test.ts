import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT_CONFIG_ERROR, STAGES } from '@readpack/config';

interface App {
  name: string;
  script: string;
  args?: string;
  exec_mode: 'cluster' | 'fork';
  instances: number | string;
  kill_timeout?: number;
  exp_backoff_restart_delay?: number;
  stop_exit_codes?: number[];
  cwd?: string;
}

const require = createRequire(import.meta.url);
const file = fileURLToPath(new URL('../../../ecosystem.config.cjs', import.meta.url));
const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const VARIABLES = ['API_INSTANCES', 'SHUTDOWN_GRACE_MS', 'MINERU_URL', ...STAGES.map((s) => `${s.toUpperCase()}_CONSUMERS`)];

/** The file reads the environment when loaded: load it afresh under the given variables. */
function load(env: Record<string, string> = {}): App[] {
  const saved = Object.fromEntries(VARIABLES.map((v) => [v, process.env[v]]));
  for (const v of VARIABLES) delete process.env[v];
  Object.assign(process.env, env);
  try {
    jest.resetModules();
    delete require.cache[file];
    return (require(file) as { apps: App[] }).apps;
  } finally {
    for (const [v, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[v];
      else process.env[v] = value;
    }
  }
}

afterEach(() => {
  jest.resetModules();
});

describe('ecosystem.config.cjs', () => {
  it('runs the API in cluster mode, as many instances as CPUs by default', () => {
    const api = load().find((a) => a.name === 'readpack-api');
    expect(api).toMatchObject({ script: 'apps/api/dist/main.js', exec_mode: 'cluster', instances: 'max' });
    expect(load({ API_INSTANCES: '3' }).find((a) => a.name === 'readpack-api')?.instances).toBe(3);
  });

  it('has one fork-mode app per stage, scaled by <STAGE>_CONSUMERS (mineru only with a MinerU server)', () => {
    const withMineru = { MINERU_URL: 'http://mineru.internal:8000' };
    const consumers = load(withMineru).filter((a) => a.script === 'apps/worker/dist/main.js');
    expect(consumers.map((a) => a.args).sort()).toEqual([...STAGES].sort());
    for (const stage of STAGES) {
      expect(consumers.find((a) => a.args === stage)).toMatchObject({ name: `readpack-${stage}`, exec_mode: 'fork', instances: 1 });
      const scaled = load({ ...withMineru, [`${stage.toUpperCase()}_CONSUMERS`]: '4' });
      expect(scaled.find((a) => a.args === stage)?.instances).toBe(4);
    }
  });

  it('runs no mineru consumer without MINERU_URL unless MINERU_CONSUMERS asks for one', () => {
    const stages = (env: Record<string, string>) => load(env).filter((a) => a.script === 'apps/worker/dist/main.js').map((a) => a.args);
    expect(stages({})).toEqual(STAGES.filter((s) => s !== 'mineru'));
    expect(stages({ MINERU_CONSUMERS: '2' })).toContain('mineru');
  });

  it('restarts with backoff and waits past the shutdown grace before SIGKILL', () => {
    for (const app of load({ SHUTDOWN_GRACE_MS: '10000' })) {
      expect(app.exp_backoff_restart_delay).toBeGreaterThan(0);
      // A configuration error is final under PM2 too, as under npm start.
      expect(app.stop_exit_codes).toEqual([EXIT_CONFIG_ERROR]);
      expect(app.kill_timeout).toBeGreaterThan(10_000);
      expect(resolve(app.cwd ?? '.')).toBe(repoRoot);
    }
    expect(load().every((a) => (a.kill_timeout ?? 0) > 30_000)).toBe(true);
  });
});
