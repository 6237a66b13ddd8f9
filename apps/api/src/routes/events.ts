import { Router, type Request, type Response } from 'express';
import type { ApiContext } from '../context.js';
import type { StreamEntry, StreamReader } from '../events/stream-readers.js';
import { ApiError, notFound } from '../http/errors.js';
import { isWellFormedId } from '../ids.js';
import { tenantOf } from '../tenant.js';

/*
 * Server-Sent Events: every change of a job's status document, read from the job's event stream
 * in Redis (scripts/prelude.lua in @readpack/job-state, Event streams). The scripts that change a
 * record append to its stream in the same atomic step, so any API process serves any job, in the
 * order the changes happened, and the stream ids are the event ids a client resumes from.
 * Ownership is checked like the status routes: another tenant's id answers the same 404 as a
 * missing one.
 */

export const JOB_EVENTS_PATH = '/api/files/job/:jobId/events';
export const BATCH_EVENTS_PATH = '/api/files/batch/:batchId/events';

/** How long one XREAD blocks before the loop looks again (client gone, stream expired). */
const BLOCK_MS = 5_000;
/** A stream id as Redis makes them; anything else in Last-Event-ID is ignored (start over). */
const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
const TERMINAL_JOB: readonly string[] = Object.freeze(['done', 'failed']);
const TERMINAL_BATCH: readonly string[] = Object.freeze(['done', 'failed', 'partial']);

interface Follow {
  key: string;
  /**
   * Writes one entry; answers true when it was the last the client needs (the stream ends).
   * `hasMore` says whether the stream holds entries after it (read or not yet read).
   */
  emit(entry: StreamEntry, res: Response, hasMore: () => Promise<boolean>): Promise<boolean>;
  /**
   * Asked when a read brought nothing new: true ends the stream. A client resuming after the
   * terminal event, or a record that expired without ending, would otherwise wait forever.
   */
  over(lastId: string, res: Response, hasMore: () => Promise<boolean>): Promise<boolean>;
}

export function eventsRouter(ctx: ApiContext): Router {
  const router = Router();

  router.get(JOB_EVENTS_PATH, async (req, res) => {
    const jobId = String(req.params.jobId);
    const view = isWellFormedId('job', jobId) ? await ctx.state.getJobView(jobId) : null;
    if (!view || view.tenant !== tenantOf(req)) throw notFound('job_not_found', 'Job not found or expired.');
    let sentCurrent = false;
    await follow(ctx, req, res, {
      key: ctx.state.jobEventsKey(jobId),
      emit: async (entry, out) => {
        writeEvent(out, entry.id, 'status', entry.view);
        return TERMINAL_JOB.includes(statusOf(entry.view));
      },
      over: async (lastId, out) => {
        const now = await ctx.state.getJobView(jobId);
        if (!now) return true;
        // A record with an empty stream (written before streams existed): its current document,
        // without an id (there is nothing to resume after), so the client starts from something.
        if (lastId === '0' && !sentCurrent) {
          sentCurrent = true;
          writeEvent(out, undefined, 'status', now.json);
        }
        return TERMINAL_JOB.includes(statusOf(now.json));
      },
    });
  });

  router.get(BATCH_EVENTS_PATH, async (req, res) => {
    const batchId = String(req.params.batchId);
    const batch = isWellFormedId('batch', batchId) ? await ctx.state.getBatch(batchId) : null;
    if (!batch || batch.tenant !== tenantOf(req)) throw notFound('batch_not_found', 'No such batch, or it has expired.');
    /**
     * Once every member has ended, the batch's own document closes the stream (with the last id
     * seen), after every member change still in the stream: a member's change and the batch it
     * settles are one script, so a batch read as settled has all its members' changes in the
     * stream already, and one read as settled before the last of them is sent would end the
     * stream without it (seen in a full run: the client missed a member's `done`).
     */
    const closeIfSettled = async (lastId: string, out: Response, hasMore: () => Promise<boolean>): Promise<boolean> => {
      const now = await ctx.state.getBatch(batchId);
      if (!now) return true;
      if (!TERMINAL_BATCH.includes(now.status) || (await hasMore())) return false;
      const { tenant: _tenant, ...aggregate } = now;
      writeEvent(out, lastId, 'status', JSON.stringify(aggregate));
      return true;
    };
    await follow(ctx, req, res, {
      key: ctx.state.batchEventsKey(batchId),
      // Each member change is a `job` event (the member's status document); once a member
      // change leaves every member settled, the batch's own document follows as `status`.
      emit: async (entry, out, hasMore) => {
        writeEvent(out, entry.id, 'job', entry.view);
        return TERMINAL_JOB.includes(statusOf(entry.view)) && (await closeIfSettled(entry.id, out, hasMore));
      },
      over: (lastId, out, hasMore) => closeIfSettled(lastId, out, hasMore),
    });
  });

  return router;
}

async function follow(ctx: ApiContext, req: Request, res: Response, stream: Follow): Promise<void> {
  const reader = ctx.events.acquire();
  if (!reader) {
    throw new ApiError(503, 'too_many_streams', 'This server follows too many event streams; poll the status route, or retry later.', {}, { 'Retry-After': '5' });
  }
  let gone = false;
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.config.events.heartbeatMs);
  const stop = () => {
    gone = true;
    clearInterval(heartbeat);
    // Ends a pending XREAD at once, instead of after its block.
    reader.close();
  };
  res.on('close', stop);
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-store');
  // nginx buffers proxied answers unless told not to; events must arrive as they happen.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  // A reconnecting EventSource sends the last id it saw; the stream resumes right after it.
  const resumeFrom = req.get('Last-Event-ID')?.trim() ?? '';
  try {
    await pump(reader, stream, res, STREAM_ID.test(resumeFrom) ? resumeFrom : '0', () => gone);
  } catch (error) {
    // A read that failed because the client left, or because this process is shutting down
    // (StreamReaders.closeAll), is expected; anything else is worth a line. Either way the client
    // reconnects with Last-Event-ID.
    if (!gone && !reader.isClosed) ctx.logger.warn('event stream read failed', { key: stream.key, error: error instanceof Error ? error.message : String(error) });
  } finally {
    stop();
    res.end();
  }
}

async function pump(reader: StreamReader, stream: Follow, res: Response, from: string, gone: () => boolean): Promise<void> {
  let last = from;
  // What is already in the stream first (the whole history on a first connection), then waits.
  let entries = await reader.range(stream.key, last, 1_000);
  const storedAfter = async (id: string): Promise<boolean> => (await reader.range(stream.key, id, 1)).length > 0;
  for (;;) {
    for (const [i, entry] of entries.entries()) {
      last = entry.id;
      if (await stream.emit(entry, res, async () => i < entries.length - 1 || (await storedAfter(entry.id)))) return;
    }
    if (gone()) return;
    // Nothing new (on connecting, or for a whole block): already over, or expired?
    const after = last;
    if (entries.length === 0 && (await stream.over(last, res, () => storedAfter(after)))) return;
    entries = await reader.next(stream.key, last, BLOCK_MS);
  }
}

function writeEvent(res: Response, id: string | undefined, event: string, data: string): void {
  // The documents are single-line JSON: one `data:` line each.
  res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`);
}

function statusOf(view: string): string {
  const parsed = JSON.parse(view) as { status?: unknown };
  return typeof parsed.status === 'string' ? parsed.status : '';
}
