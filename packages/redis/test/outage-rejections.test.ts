import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * surviveRedisOutageRejections in a process of its own (Jest has its own rejection handlers): a
 * rejection with a Redis-unavailable error that nothing awaits is reported and the process lives
 * on; any other unhandled rejection still ends the process, as Node's default does.
 */

const REDIS = fileURLToPath(new URL('../dist/index.js', import.meta.url));

function runWith(rejection: string): { status: number | null; stdout: string; stderr: string } {
  const script = `
    import { surviveRedisOutageRejections } from ${JSON.stringify(REDIS)};
    surviveRedisOutageRejections((error) => console.log('reported: ' + error.message));
    void Promise.reject(${rejection});
    setTimeout(() => console.log('still running'), 100);
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('surviveRedisOutageRejections', () => {
  it('reports a Redis-unavailable rejection nothing awaits, and the process runs on', () => {
    const run = runWith(`Object.assign(new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN Hash slot not served'), { name: 'ClusterAllFailedError' })`);
    expect(run.stdout).toContain('reported: Too many Cluster redirections');
    expect(run.stdout).toContain('still running');
    expect(run.status).toBe(0);
  });

  it('ends the process on any other unhandled rejection', () => {
    const run = runWith(`new TypeError('a bug, not an outage')`);
    expect(run.stdout).not.toContain('still running');
    expect(run.stderr).toContain('a bug, not an outage');
    expect(run.status).not.toBe(0);
  });
});
