import { createParser } from 'eventsource-parser';
import type { JobStatus, ReadpackClient } from './client.js';

const TERMINAL = new Set(['done', 'failed']);

/**
 * Follows one job until it ends, calling `onStatus` with every state it sees: from the server's
 * event stream (`/events`) where it has one, else by polling the status route (every 300 ms,
 * backing off to 2 s). Resolves with the terminal status.
 */
export async function followJob(client: ReadpackClient, jobId: string, onStatus: (status: JobStatus) => void): Promise<JobStatus> {
  const streamed = await followEvents(client, jobId, onStatus);
  return streamed ?? pollJob(client, jobId, onStatus);
}

async function followEvents(client: ReadpackClient, jobId: string, onStatus: (status: JobStatus) => void): Promise<JobStatus | undefined> {
  const abort = new AbortController();
  const body = await client.events(jobId, abort.signal);
  if (!body) return undefined;
  let last: JobStatus | undefined;
  const parser = createParser({
    onEvent: (event) => {
      // Every event's data is the job's status document at that moment.
      const status = JSON.parse(event.data) as JobStatus;
      last = status;
      onStatus(status);
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (last && TERMINAL.has(last.status)) return last;
    }
  } finally {
    abort.abort();
  }
  // The stream ended before the job did (a proxy cut it): polling picks it up from here.
  return undefined;
}

async function pollJob(client: ReadpackClient, jobId: string, onStatus: (status: JobStatus) => void): Promise<JobStatus> {
  let delay = 300;
  for (;;) {
    const status = await client.status(jobId);
    onStatus(status);
    if (TERMINAL.has(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 1.5, 2_000);
  }
}
