import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import winston from 'winston';
import { createLogger, jobLogger } from '../src/index.js';

function captured(format: 'json' | 'pretty'): { logger: winston.Logger; lines: () => string[] } {
  const logger = createLogger({ component: 'worker-extract', format });
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  logger.clear().add(new winston.transports.Stream({ stream }));
  return { logger, lines: () => chunks.join('').trimEnd().split('\n') };
}

describe('log format', () => {
  it('pretty: time, process, level, message and job first, other fields after, secrets redacted', () => {
    process.env.NO_COLOR = '1';
    const { logger, lines } = captured('pretty');
    jobLogger(logger, { jobId: 'job_abc', stage: 'extract' }).info('extracted', { pages: 3, password: 'hunter2' });
    expect(lines()).toEqual([expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} worker-extract\\[${process.pid}\\] info  extracted job=job_abc stage=extract pages=3 password=\\[redacted\\]$`))]);
  });

  it('pretty: an error prints its stack under the line', () => {
    const { logger, lines } = captured('pretty');
    logger.error('parse failed', { error: new Error('boom') });
    expect(lines()[0]).toMatch(/ error parse failed error=\{"name":"Error","message":"boom"/);
  });

  it('json: one object per line with host, pid, component and the job', () => {
    const { logger, lines } = captured('json');
    jobLogger(logger, { jobId: 'job_abc', stage: 'extract' }).info('extracted', { pages: 3 });
    expect(JSON.parse(lines()[0]!)).toMatchObject({ level: 'info', message: 'extracted', jobId: 'job_abc', stage: 'extract', pages: 3, pid: process.pid, component: 'worker-extract' });
  });

  it('unset: JSON when stdout is not a terminal (a file, a pipe, a container log)', () => {
    // The built module, as the supervisor's children load it (npm test builds before testing).
    const module = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const code = `import(${JSON.stringify(module)}).then((m) => m.createLogger({ component: 'c' }).info('hello'))`;
    const out = execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    expect(JSON.parse(out)).toMatchObject({ message: 'hello', component: 'c' });
  });
});
