/**
 * How a MinerU call failed, in the terms the caller's retry logic needs:
 * - `rate_limited` (429/503): back off, honouring `retryAfterMs` when MinerU or a proxy sent one.
 * - `server_error` (other 5xx, or a 2xx whose body breaks the protocol): retry with backoff.
 * - `timeout`: no answer within the request timeout, or (`budgetExhausted`) the task did not
 *   finish within the caller's total budget.
 * - `unreachable`: connection refused/reset, DNS failure — MinerU is down or restarting.
 * - `bad_request` (400/422 and other 4xx): permanent; `message` carries MinerU's own `detail`.
 * - `task_lost` (404 for a task id we hold): MinerU forgot it (restart, cleanup, another replica).
 * - `task_failed`: MinerU ran the task and it failed (`message` is MinerU's `error`).
 */
export type MinerUErrorKind =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'unreachable'
  | 'bad_request'
  | 'task_lost'
  | 'task_failed';

export interface MinerUErrorDetails {
  status?: number;
  retryAfterMs?: number;
  taskId?: string;
  budgetExhausted?: boolean;
  /** The response body (parsed JSON when it was JSON), for logs. */
  body?: unknown;
  cause?: unknown;
}

export class MinerUError extends Error {
  override readonly name = 'MinerUError';
  readonly kind: MinerUErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly taskId: string | undefined;
  readonly budgetExhausted: boolean;
  readonly body: unknown;

  constructor(kind: MinerUErrorKind, message: string, details: MinerUErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.taskId = details.taskId;
    this.budgetExhausted = details.budgetExhausted ?? false;
    this.body = details.body;
  }

  /**
   * Whether trying again later can succeed. `task_lost` counts as transient: resubmitting works.
   * A spent budget does not: the same document would spend it again.
   */
  get transient(): boolean {
    if (this.budgetExhausted) return false;
    return this.kind !== 'bad_request' && this.kind !== 'task_failed';
  }
}

export function isMinerUError(value: unknown): value is MinerUError {
  return value instanceof MinerUError;
}
