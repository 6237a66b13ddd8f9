#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startFakeMinerU } from './server.js';

/**
 * `node packages/mineru-fake/dist/cli.js --port 8000`: the fake as its own process, for demos and
 * worker-level tests. Prints one line `mineru-fake listening on <url>` once it accepts requests;
 * SIGTERM/SIGINT stop it. Controls: HTTP under /__fake/ (docs/mineru.md).
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'max-concurrent': { type: 'string', default: '3' },
    'processing-ms': { type: 'string', default: '50' },
  },
});

const numberOption = (name: string, raw: string, min: number): number => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    process.stderr.write(`mineru-fake: --${name} must be an integer >= ${min}, got ${raw}\n`);
    process.exit(2);
  }
  return value;
};

const fake = await startFakeMinerU({
  port: numberOption('port', values.port, 0),
  host: values.host,
  maxConcurrent: numberOption('max-concurrent', values['max-concurrent'], 1),
  processingMs: numberOption('processing-ms', values['processing-ms'], 0),
});
process.stdout.write(`mineru-fake listening on ${fake.url}\n`);

const stop = () => {
  fake.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
