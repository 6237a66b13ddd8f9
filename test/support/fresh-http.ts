import { request } from 'node:http';
import { waitFor } from '@readpack/testing';

export interface FreshResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T>(): T;
}

/**
 * One request on a brand-new TCP connection (`agent: false`, `Connection: close`). fetch keeps
 * connections alive, so every poll would reach the same API process and hide the seed bug: a
 * new connection is a new chance for the cluster to pick another process.
 */
export function freshRequest(url: string, options: { method?: string; timeoutMs?: number } = {}): Promise<FreshResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', agent: false, headers: { Connection: 'close' }, timeout: options.timeoutMs ?? 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          json: <T>() => JSON.parse(body) as T,
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${options.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** The pid in an `X-Served-By: host:pid` header. */
export function servedByPid(response: FreshResponse): number {
  const value = String(response.headers['x-served-by'] ?? '');
  const pid = Number(value.slice(value.lastIndexOf(':') + 1));
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in X-Served-By: ${JSON.stringify(value)}`);
  return pid;
}

/** Waits until GET `<base>/healthz` answers 200 (refused connections are retried). */
export async function waitForHealthy(base: string, options: { timeoutMs?: number; describe?: () => string | Promise<string> } = {}): Promise<void> {
  try {
    await waitFor(
      async () => {
        const res = await freshRequest(`${base}/healthz`, { timeoutMs: 2_000 }).catch(() => undefined);
        return res?.status === 200 ? true : undefined;
      },
      { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 200, what: `${base}/healthz` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${(await options.describe?.()) ?? ''}`, { cause: error });
  }
}
