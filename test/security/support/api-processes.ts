import { waitFor } from '@readpack/testing';
import { jsonLines, type ServiceProcess } from '../../support/service-process.js';
import { startApiProcess } from '../../support/readpack-processes.js';

export interface ApiProcess {
  process: ServiceProcess;
  url: string;
}

/**
 * `count` API processes from the built entry point, each on its own free port, sharing `vars`
 * (so one Redis prefix and DATA_DIR): separate processes, separate memory, one Redis. Whatever
 * they enforce together can only be enforced there.
 */
export async function startApiProcesses(count: number, vars: Record<string, string>): Promise<ApiProcess[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startApiProcess({ ...vars, PORT: '0', LOG_LEVEL: 'info' })));
  try {
    return await Promise.all(
      started.map(async (proc) => ({
        process: proc,
        url: await waitFor(
          async () => {
            if (proc.child.exitCode !== null) throw new Error(`API process exited early\n${proc.outputTail()}`);
            const line = jsonLines(proc.stdoutLines()).find((l) => l.message === 'api listening');
            return typeof line?.url === 'string' ? line.url : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 50, what: 'an API process to listen' },
        ),
      })),
    );
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
}
