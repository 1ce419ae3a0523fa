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

/**
 * Streams `source` from `fromSeq` on an open `response` (headers sent) until the client leaves,
 * the store fails, or more than `maxBufferedBytes` wait for the client.
 */
export async function runEventStream(
  response: Response,
  source: StreamSource,
  fromSeq: number,
  maxBufferedBytes: number,
): Promise<void> {
  let closed = false;
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const stops: (() => void)[] = [() => clearInterval(heartbeat)];
  response.on('close', () => {
    closed = true;
    for (const stop of stops.splice(0)) stop();
  });
  const fail = (error: unknown) => {
    if (closed) return;
    response.end(source.failure(error));
  };
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
      if (response.writableLength > maxBufferedBytes) {
        subscription.unsubscribe();
        response.end(RECONNECT_COMMENT);
        return;
      }
      response.write(frame(event));
    },
    error: fail,
    complete: () => response.end(),
  });
  stops.push(() => subscription.unsubscribe());
}
