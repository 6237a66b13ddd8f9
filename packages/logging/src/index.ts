import { hostname } from 'node:os';
import winston from 'winston';
import { activeSpanIds } from '@readpack/tracing';

export type Logger = winston.Logger;

/** `host:pid` — who did something; also the API's X-Served-By header and the records' updatedBy. */
export const PROCESS_IDENTITY = `${hostname()}:${process.pid}`;

export type LogFormat = 'json' | 'pretty';

/**
 * One JSON object per line on stdout, every line with `host` and `pid` (a line about a job also
 * carries `jobId` and `stage`: use `jobLogger`) — the format for files, containers and log
 * shippers. On a terminal (or with `format: 'pretty'`) the same records print as short
 * coloured lines for a person. Secrets never reach a log: callers log ids, not payloads, and the
 * redaction below is a second net for fields that look like credentials.
 */
export function createLogger(options: { level?: string; component: string; format?: LogFormat | undefined }): Logger {
  const format = options.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { host: hostname(), pid: process.pid, component: options.component },
    format: winston.format.combine(
      redactSecrets(),
      serializeErrors(),
      traceIds(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      format === 'pretty' ? prettyLine(Boolean(process.stdout.isTTY) && !process.env.NO_COLOR) : winston.format.json(),
    ),
    transports: [new winston.transports.Console()],
  });
}

const LEVEL_COLOURS: Record<string, string> = { error: '31', warn: '33', info: '32', debug: '90' };
/** Fields every line has, or that the pretty line prints in its own place. */
const PLACED = new Set(['level', 'message', 'timestamp', 'host', 'pid', 'component', 'jobId', 'stage', 'stack']);

/**
 * `14:02:11.532 worker-extract[4711] info  extracted  job=job_abc stage=extract pages=3` — the
 * time, the process, the level, the message and the job first, other fields as key=value after.
 */
function prettyLine(colour: boolean) {
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  return winston.format.printf((info) => {
    const time = String(info.timestamp ?? '').slice(11, 23);
    const level = String(info.level);
    const job = info.jobId === undefined ? '' : ` ${paint('36', `job=${String(info.jobId)}`)}${info.stage === undefined ? '' : ` stage=${String(info.stage)}`}`;
    const rest = Object.entries(info)
      .filter(([key, value]) => !PLACED.has(key) && value !== undefined)
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    const line = `${paint('90', time)} ${String(info.component)}[${String(info.pid)}] ${paint(LEVEL_COLOURS[level] ?? '0', level.padEnd(5))} ${String(info.message)}${job}${rest ? ` ${paint('90', rest)}` : ''}`;
    return typeof info.stack === 'string' ? `${line}\n${paint('90', info.stack)}` : line;
  });
}

/**
 * With tracing on, a line written while a span is active names it (`traceId`, `spanId`): a trace
 * found in Jaeger or Tempo leads to its log lines. Off, nothing is added.
 */
const traceIds = winston.format((info) => {
  const ids = activeSpanIds();
  if (ids) Object.assign(info, ids);
  return info;
});

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
