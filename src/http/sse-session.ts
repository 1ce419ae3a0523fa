/**
 * One client's event stream, with bounded memory. The replay reads the log a page at a time and
 * writes the next event only once the socket has drained (`write()` returned false: wait for
 * 'drain'), so a slow client costs one page, not the log. Live events are written as they come;
 * when the bytes waiting for a client exceed the bound, the stream ends with a comment telling
 * it to reconnect with `Last-Event-ID`: nothing is lost, the reconnect replays from there.
 */
import type { Observable } from 'rxjs';
import type { Sequenced } from '../core/index.js';
import type { HttpResponse as Response } from './http-types.js';

/** Events the replay reads per page. */
export const STREAM_PAGE = 100;

/** How often an idle event stream sends a comment, so proxies keep it open. @defaultValue 15 s */
export const HEARTBEAT_MS = 15_000;

/** The last comment of a stream whose client fell too far behind. */
export const RECONNECT_COMMENT =
  ': too far behind; reconnect with Last-Event-ID (the id of the last event received)\n\n';

/** Where a stream's events come from. */
export interface StreamSource {
  /** At most {@link STREAM_PAGE} events from `fromSeq`, in seq order. */
  page(fromSeq: number): Promise<readonly Sequenced[]>;
  /** Every event from `fromSeq`, then each new one as it is appended. */
  live(fromSeq: number): Observable<Sequenced>;
  /** The SSE message of a failure after the stream opened. */
  failure(error: unknown): string;
}

/** One SSE message: `id:` is the seq, so a reconnect resumes after it. */
const frame = (event: Sequenced) => `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;

/** Resolves when `response` can take more data, or has closed. */
export function drained(response: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** Limits of one event stream. */
export interface StreamLimits {
  /** Bytes that may wait for the client before the stream ends with {@link RECONNECT_COMMENT}. */
  readonly maxBufferedBytes: number;
  /**
   * How often an idle stream sends a comment; also how long an ended stream's last bytes may
   * wait for a client that does not read before its socket is cut (freeing what it held).
   * @defaultValue {@link HEARTBEAT_MS}
   */
  readonly heartbeatMs?: number;
}

/**
 * Streams `source` from `fromSeq` on an open `response` (headers sent) until the client leaves,
 * the store fails, or more than `limits.maxBufferedBytes` wait for the client.
 */
export async function runEventStream(
  response: Response,
  source: StreamSource,
  fromSeq: number,
  limits: StreamLimits,
): Promise<void> {
  const heartbeatMs = limits.heartbeatMs ?? HEARTBEAT_MS;
  let closed = false;
  const heartbeat = setInterval(() => {
    // Never after the end: writing to an ended response is an 'error' event.
    if (!response.writableEnded) response.write(': keep-alive\n\n');
  }, heartbeatMs);
  const stops: (() => void)[] = [() => clearInterval(heartbeat)];
  const stopAll = () => {
    for (const stop of stops.splice(0)) stop();
  };
  response.on('close', () => {
    closed = true;
    stopAll();
  });
  // A socket error (the client vanished) ends the stream; it must not become an uncaught error.
  response.on('error', stopAll);
  /** Ends the stream with `last`; a client that does not take it in time loses its socket. */
  const finish = (last?: string) => {
    if (closed || response.writableEnded) return;
    stopAll();
    response.end(last);
    const cut = setTimeout(() => response.destroy(), heartbeatMs);
    response.once('close', () => clearTimeout(cut));
  };
  const fail = (error: unknown) => finish(source.failure(error));
  let cursor = fromSeq;
  try {
    for (;;) {
      const events = await source.page(cursor);
      for (const event of events) {
        if (closed) return;
        if (!response.write(frame(event))) await drained(response);
        cursor = event.seq + 1;
      }
      // Pages are also bounded in bytes, so a short page is not the end: only an empty one is.
      if (events.length === 0) break;
    }
  } catch (error) {
    fail(error);
    return;
  }
  if (closed) return;
  const subscription = source.live(cursor).subscribe({
    next: (event) => {
      if (response.writableEnded) return;
      if (response.writableLength > limits.maxBufferedBytes) {
        finish(RECONNECT_COMMENT);
        return;
      }
      response.write(frame(event));
    },
    error: fail,
    complete: () => finish(),
  });
  stops.push(() => subscription.unsubscribe());
  if (closed || response.writableEnded) stopAll();
}
