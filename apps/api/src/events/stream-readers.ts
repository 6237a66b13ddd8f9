import { createConsumerConnection } from '@readpack/redis';
import type { RedisClient } from '@readpack/redis';

/** One entry of an event stream: its id (the SSE event id) and the status document it carries. */
export interface StreamEntry {
  id: string;
  view: string;
}

/**
 * The Redis connections that follow event streams for Server-Sent Events clients.
 *
 * A blocking XREAD holds its connection until something arrives, so each open event stream gets a
 * connection of its own (the shared producer connection must stay free for requests, and its
 * short command timeout would cut every block). Connections are bounded per process: beyond
 * `max`, `open` answers undefined and the route answers 503, so a crowd of idle listeners cannot
 * exhaust Redis' client limit. The count is of open connections, not job state: any process can
 * serve any stream, because every change is read from Redis.
 */
export class StreamReaders {
  private open = 0;
  /** The open readers' connections, so that a shutdown can end their streams (see closeAll). */
  private readonly readers = new Set<StreamReader>();

  constructor(
    private readonly url: string,
    private readonly max: number,
  ) {}

  get size(): number {
    return this.open;
  }

  /** A reader for one client, or undefined when this process already serves `max` streams. */
  acquire(): StreamReader | undefined {
    if (this.open >= this.max) return undefined;
    this.open += 1;
    const connection = createConsumerConnection({ url: this.url }, 'readpack-api:events');
    const reader = new StreamReader(connection, () => {
      this.open -= 1;
      this.readers.delete(reader);
    });
    this.readers.add(reader);
    return reader;
  }

  /**
   * Ends every open stream (its pending read fails, the route ends the response). Called on
   * shutdown: an event stream never ends by itself, and server.close() waits for every open
   * response. Clients reconnect, with Last-Event-ID, to another process.
   */
  closeAll(): void {
    for (const reader of [...this.readers]) reader.close();
  }
}

export class StreamReader {
  private closed = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly onClose: () => void,
  ) {
    // A dropped connection is retried by ioredis; the pending read fails and the route ends the
    // response, so the client reconnects with Last-Event-ID and loses nothing.
    redis.on('error', () => undefined);
  }

  /** Entries after `afterId` ('0' for all), oldest first, at most `count`; no waiting. */
  async range(key: string, afterId: string, count: number): Promise<StreamEntry[]> {
    const start = afterId === '0' ? '-' : `(${afterId}`;
    return toEntries(await this.redis.xrange(key, start, '+', 'COUNT', count));
  }

  /** Waits up to `blockMs` for entries after `afterId`; empty when none came. */
  async next(key: string, afterId: string, blockMs: number): Promise<StreamEntry[]> {
    const reply = await this.redis.xread('COUNT', 100, 'BLOCK', blockMs, 'STREAMS', key, afterId);
    return reply === null ? [] : reply.flatMap(([, entries]) => toEntries(entries));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Ends the connection (a pending block fails with "Connection is closed") and frees the slot. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.redis.disconnect();
    this.onClose();
  }
}

function toEntries(entries: [id: string, fields: string[]][]): StreamEntry[] {
  const out: StreamEntry[] = [];
  for (const [id, fields] of entries) {
    const at = fields.indexOf('view');
    const view = at >= 0 ? fields[at + 1] : undefined;
    if (view !== undefined) out.push({ id, view });
  }
  return out;
}
