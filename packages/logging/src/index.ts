import { hostname } from 'node:os';
import winston from 'winston';

export type Logger = winston.Logger;

/** `host:pid` — who did something; also the API's X-Served-By header and the records' updatedBy. */
export const PROCESS_IDENTITY = `${hostname()}:${process.pid}`;

/**
 * One JSON object per line on stdout, every line with `host` and `pid` (a line about a job also
 * carries `jobId` and `stage`: use `jobLogger`). Secrets never reach a log: callers log ids, not
 * payloads, and the redaction below is a second net for fields that look like credentials.
 */
export function createLogger(options: { level?: string; component: string }): Logger {
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { host: hostname(), pid: process.pid, component: options.component },
    format: winston.format.combine(redactSecrets(), serializeErrors(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}

/** A child logger bound to one job: every line it writes names the job and the stage. */
export function jobLogger(logger: Logger, context: { jobId: string; stage: string; [key: string]: unknown }): Logger {
  return logger.child(context);
}

const SECRET_KEYS = /^(authorization|password|passwd|secret|token|api[-_]?key|cookie)$/i;

/** `logger.error('…', { error })` would print `{}`: JSON drops an Error's own fields. */
const serializeErrors = winston.format((info) => {
  for (const [key, value] of Object.entries(info)) {
    if (value instanceof Error) {
      const code = (value as { code?: unknown }).code;
      info[key] = { name: value.name, message: value.message, stack: value.stack, ...(code === undefined ? {} : { code }) };
    }
  }
  return info;
});

const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) info[key] = '[redacted]';
  }
  return info;
});
