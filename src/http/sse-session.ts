/**
 * One client's event stream, with bounded memory. Events are read from the log and framed only
 * for a client that takes them: once more than `maxBufferedBytes` wait for it (and the socket
 * said so, `write()` returned false), the stream stops reading, framing and following the log for
 * it until the socket drains, then catches up from the log a page at a time and goes live again.
 * So a client that does not read holds what its socket already buffered, never a copy of every
 * live event; one that takes nothing for `heartbeatMs` is ended with a comment telling it to
 * reconnect with `Last-Event-ID`: nothing is lost, the reconnect replays from there.
 */
import type { Observable, Subscription } from 'rxjs';
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
  return drainedWithin(response, undefined).then(() => undefined);
}

/**
 * Resolves true when `response` can take more data or has closed, false when neither happened
 * within `ms` (never, without `ms`).
 */
export function drainedWithin(response: Response, ms: number | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (taken: boolean) => {
      clearTimeout(timer);
      response.off('drain', onDrain);
      response.off('close', onDrain);
      resolve(taken);
    };
    const onDrain = () => done(true);
    const timer = ms === undefined ? undefined : setTimeout(() => done(false), ms);
    response.on('drain', onDrain);
    response.on('close', onDrain);
  });
}

/** Limits of one event stream. */
export interface StreamLimits {
  /**
   * Bytes that may wait for the client; past them the stream reads and writes nothing more for
   * it until its socket drains.
   */
  readonly maxBufferedBytes: number;
  /**
   * How often an idle stream sends a comment; also how long a client may take nothing before
   * its stream ends with {@link RECONNECT_COMMENT}, and how long an ended stream's last bytes may
   * wait for it before its socket is cut (freeing what it held).
   * @defaultValue {@link HEARTBEAT_MS}
   */
  readonly heartbeatMs?: number;
}

/**
 * Streams `source` from `fromSeq` on an open `response` (headers sent) until the client leaves,
 * the store fails, or the client takes nothing for `limits.heartbeatMs` while events wait.
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
  let stopLive: (() => void) | undefined;
  const stopAll = () => {
    clearInterval(heartbeat);
    stopLive?.();
  };
  response.on('close', () => {
    closed = true;
    stopAll();
  });
  // A socket error (the client vanished) ends the stream; it must not become an uncaught error.
  response.on('error', stopAll);
  const over = () => closed || response.writableEnded || response.destroyed;
  /** Ends the stream with `last`; a client that does not take it in time loses its socket. */
  const finish = (last?: string) => {
    if (over()) return;
    stopAll();
    response.end(last);
    // Unref'd: a client slow to hang up must not keep a closing process alive.
    const cut = setTimeout(() => response.destroy(), heartbeatMs).unref();
    response.once('close', () => clearTimeout(cut));
  };
  const fail = (error: unknown) => finish(source.failure(error));
  /** Writes one event; true when the client must take what waits before it gets more. */
  const full = (event: Sequenced) =>
    !response.write(frame(event)) && response.writableLength > limits.maxBufferedBytes;
  /** Waits for the client to take what waits; false when the stream is over (a laggard ended). */
  const caughtUp = async () => {
    if (!(await drainedWithin(response, heartbeatMs))) finish(RECONNECT_COMMENT);
    return !over();
  };
  let cursor = fromSeq;
  try {
    for (;;) {
      // Catch up from the log a page at a time. Pages are also bounded in bytes, so a short
      // page is not the end: only an empty one is.
      for (let events = await source.page(cursor); events.length > 0;) {
        for (const event of events) {
          if (over()) return;
          const behind = full(event);
          cursor = event.seq + 1;
          if (behind && !(await caughtUp())) return;
        }
        events = await source.page(cursor);
      }
      if (over()) return;
      // Live until the client falls behind; then it catches up from the log, from `cursor`.
      const next = await new Promise<'behind' | 'over'>((resolve) => {
        // Assigned once subscribe() returns; a synchronous source may stop before that.
        let subscription: Subscription | undefined = undefined;
        let stopped = false;
        const stop = (why: 'behind' | 'over') => {
          if (stopped) return;
          stopped = true;
          stopLive = undefined;
          subscription?.unsubscribe();
          resolve(why);
        };
        stopLive = () => stop('over');
        subscription = source.live(cursor).subscribe({
          next: (event) => {
            if (stopped || over()) return;
            const behind = full(event);
            cursor = event.seq + 1;
            if (behind) stop('behind');
          },
          error: (error: unknown) => {
            stop('over');
            fail(error);
          },
          complete: () => {
            stop('over');
            finish();
          },
        });
        // A source that emitted (or failed) synchronously, or a client gone meanwhile.
        if (stopped) subscription.unsubscribe();
        else if (over()) stop('over');
      });
      if (next === 'over' || !(await caughtUp())) return;
    }
  } catch (error) {
    fail(error);
  }
}
