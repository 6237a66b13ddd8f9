import type { Stage } from '@readpack/config';
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
