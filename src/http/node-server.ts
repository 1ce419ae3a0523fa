/**
 * The Node HTTP server under Nest, created with the application's timeouts: how long a client
 * may take to send its headers and its whole request, and how long a connection with an open
 * request may stay silent. A request that runs out of time answers 408 `REQUEST_TIMEOUT` as JSON
 * where the socket still allows an answer (see `client-errors.ts`).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ExpressAdapter } from '@nestjs/platform-express';
import { answerClientError, answerTimedOut } from './client-errors.js';
import type { ResolvedHttpConfig } from './http-config.js';

/** The timeouts of {@link ResolvedHttpConfig}, in milliseconds; 0 disables one. */
export type ServerTimeouts = Pick<
  ResolvedHttpConfig,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'idleTimeoutMs'
>;

/**
 * Node checks header and request deadlines on an interval (30 s by default), so a short timeout
 * would fire late: check at half the shortest one, between 50 ms and 1 s.
 */
function checkingInterval({ headersTimeoutMs, requestTimeoutMs }: ServerTimeouts): number {
  const set = [headersTimeoutMs, requestTimeoutMs].filter((ms) => ms > 0);
  return Math.min(1000, Math.max(50, Math.floor(Math.min(...set, 2000) / 2)));
}

/** A Node HTTP server with `timeouts` that answers refused and timed-out requests as JSON. */
export function createTimedServer(timeouts: ServerTimeouts, handler: RequestListener): Server {
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs } = timeouts;
  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeout:
        requestTimeoutMs > 0 ? Math.min(headersTimeoutMs, requestTimeoutMs) : headersTimeoutMs,
      connectionsCheckingInterval: checkingInterval(timeouts),
    },
    handler,
  );
  server.setTimeout(idleTimeoutMs, (socket: Socket) => answerTimedOut(socket));
  server.on('clientError', answerClientError);
  return server;
}

/**
 * Nest's Express adapter on a {@link createTimedServer}. Closing the application also closes
 * every open connection (event streams included), so `close()` never waits on a client.
 */
export class TimedExpressAdapter extends ExpressAdapter {
  constructor(private readonly timeouts: ServerTimeouts) {
    super();
  }

  override initHttpServer(): void {
    this.setHttpServer(createTimedServer(this.timeouts, this.getInstance<RequestListener>()));
  }

  override close(): Promise<unknown> | undefined {
    const closing = super.close();
    (this.getHttpServer() as Server | undefined)?.closeAllConnections();
    return closing;
  }
}
