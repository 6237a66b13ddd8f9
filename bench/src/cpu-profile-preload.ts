/**
 * `--import` preload of `bench:throughput` (BENCH_CPU_PROFILE): Node 20 refuses `--cpu-prof` in
 * NODE_OPTIONS, which is the only way through the supervisor to every process it starts. This
 * starts the V8 profiler in the process's main thread and writes `<dir>/<pid>.cpuprofile` (the
 * format of `--cpu-prof`, for Chrome DevTools) when the process exits.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.READPACK_CPU_PROFILE_DIR;
if (dir && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 500 });
  session.post('Profiler.start');
  // The in-process inspector answers synchronously, so the profile is written before exit completes.
  process.once('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error) process.stderr.write(`cpu profile of ${process.pid} not written: ${error.message}\n`);
      else writeFileSync(`${dir}/${process.pid}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
