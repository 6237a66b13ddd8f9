import { freshRequest, servedByPid, type FreshResponse } from './fresh-http.js';

export interface Poll {
  status: number;
  pid: number;
  body: string;
}

export interface PollOptions<T> {
  /** True once the answer is the one we wait for (e.g. a terminal status). */
  until: (body: T) => boolean;
  /** Keep polling at least this many times, even after `until` holds. */
  minPolls: number;
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `url`, each time on a new connection, until `until` holds and at least `minPolls` answers
 * were seen. Every answer is kept; polling stops at the first non-200 so the caller can assert on
 * it (and on which process gave it) instead of timing out.
 */
export async function pollFresh<T>(url: string, options: PollOptions<T>): Promise<{ polls: Poll[]; last: T | undefined }> {
  const { until, minPolls, timeoutMs = 60_000, intervalMs = 25 } = options;
  const deadline = Date.now() + timeoutMs;
  const polls: Poll[] = [];
  let last: T | undefined;
  let satisfied = false;
  while (!satisfied || polls.length < minPolls) {
    const res: FreshResponse = await freshRequest(url);
    polls.push({ status: res.status, pid: servedByPid(res), body: res.body });
    if (res.status !== 200) break;
    last = res.json<T>();
    satisfied ||= until(last);
    if (Date.now() > deadline) throw new Error(`${url}: condition not met after ${polls.length} polls in ${timeoutMs} ms; last answer ${res.body}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return { polls, last };
}

/** The answers that were not 200, for an assertion message that shows what went wrong. */
export function failedPolls(polls: Poll[]): string[] {
  return polls.filter((p) => p.status !== 200).map((p) => `${p.status} from pid ${p.pid}: ${p.body}`);
}
