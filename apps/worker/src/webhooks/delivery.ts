import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkWebhookTarget, guardedLookup, type WebhookAllowList } from '@readpack/queues';

/** Redirects followed per attempt, each target checked like the first (SSRF). */
export const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface Delivery {
  url: string;
  body: string;
  deliveryId: string;
  secret: string;
}

export class DeliveryFailed extends Error {
  override readonly name = 'DeliveryFailed';
  constructor(
    message: string,
    /** The receiver's answer, when there was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * `Readpack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The
 * timestamp is signed with the body so a receiver can refuse old replays (docs/webhooks.md).
 */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * One attempt: POSTs the event, following at most MAX_REDIRECTS redirects (each with the same
 * POST, each target checked again), within `timeoutMs` in all. Resolves with the final 2xx
 * status; throws DeliveryFailed (or WebhookTargetError) otherwise, and the queue retries.
 */
export async function deliver(delivery: Delivery, allow: WebhookAllowList, timeoutMs: number): Promise<number> {
  const signal = AbortSignal.timeout(timeoutMs);
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'Readpack-Webhooks/1',
    'Readpack-Idempotency-Key': delivery.deliveryId,
    'Readpack-Signature': signature(delivery.secret, delivery.body, Math.floor(Date.now() / 1000)),
  };
  let target = await checkWebhookTarget(delivery.url, allow);
  for (let hop = 0; ; hop += 1) {
    const answer = await post(target, delivery.body, headers, allow, signal);
    if (answer.status >= 200 && answer.status < 300) return answer.status;
    if (!REDIRECTS.has(answer.status) || !answer.location) throw new DeliveryFailed(`the receiver answered ${answer.status}`, answer.status);
    if (hop >= MAX_REDIRECTS) throw new DeliveryFailed(`more than ${MAX_REDIRECTS} redirects`, answer.status);
    target = await checkWebhookTarget(new URL(answer.location, target).href, allow);
  }
}

function post(url: URL, body: string, headers: Record<string, string>, allow: WebhookAllowList, signal: AbortSignal): Promise<{ status: number; location: string | undefined }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, lookup: guardedLookup(allow), signal }, (res: IncomingMessage) => {
      // The answer's body means nothing to us; it is read (and dropped) so the socket is freed.
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: typeof res.headers.location === 'string' ? res.headers.location : undefined }));
      res.on('error', reject);
    });
    req.on('error', (error: Error) => reject(signal.aborted ? new DeliveryFailed('timed out') : error));
    req.end(body);
  });
}
