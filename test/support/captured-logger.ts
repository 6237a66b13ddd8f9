import { Writable } from 'node:stream';
import winston from 'winston';
import type { Logger } from '@readpack/logging';

export interface LogRecord {
  level: string;
  message: string;
  [field: string]: unknown;
}

/** A logger that keeps its records in memory, for tests that assert what was (not) logged and how. */
export function capturedLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const sink = new Writable({
    objectMode: true,
    write(info: LogRecord, _encoding, callback) {
      records.push({ ...info });
      callback();
    },
  });
  const logger = winston.createLogger({ level: 'debug', transports: [new winston.transports.Stream({ stream: sink })] });
  return { logger, records };
}
