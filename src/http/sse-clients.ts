/**
 * The open event streams of the application: counted for the `memledger.sse.clients` metric,
 * and ended with a reconnect hint when the server shuts down, so each `EventSource` reconnects
 * (to this server once it is back, or to another behind the same address) after `retry`.
 */
import { Injectable } from '@nestjs/common';
import { memledgerInstruments } from '../telemetry/index.js';
import type { HttpResponse } from './http-types.js';

/** How long a client told to reconnect waits first, in milliseconds. */
export const SHUTDOWN_RETRY_MS = 1000;

/** The last bytes of a stream ended by a shutdown: the reconnect delay, and why. */
export const SHUTDOWN_MESSAGE = `retry: ${SHUTDOWN_RETRY_MS}\n: server shutting down; reconnect with Last-Event-ID\n\n`;

/** Open event-stream responses. */
@Injectable()
export class SseClients {
  private readonly open = new Set<HttpResponse>();

  /** Open streams now. */
  get size(): number {
    return this.open.size;
  }

  /** Follows `response` until it closes. */
  add(response: HttpResponse): void {
    this.open.add(response);
    memledgerInstruments().sseClients.add(1);
    response.once('close', () => {
      if (this.open.delete(response)) memledgerInstruments().sseClients.add(-1);
    });
  }

  /** Ends every open stream with {@link SHUTDOWN_MESSAGE}. */
  endAll(): void {
    for (const response of this.open) {
      if (!response.writableEnded) response.end(SHUTDOWN_MESSAGE);
    }
  }
}
