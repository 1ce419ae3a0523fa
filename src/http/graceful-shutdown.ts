/**
 * Shutting down without losing an acknowledged write: stop accepting connections, let the
 * requests under way finish (an append that started is answered), end event streams with a
 * reconnect hint, close the application (memories, read models, the store) and flush traces;
 * all within a bound, past which the process exits anyway.
 */
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { InFlightRequests } from './in-flight-requests.js';
import { SseClients } from './sse-clients.js';

/** What a shutdown needs. */
export interface ShutdownTarget {
  readonly app: NestExpressApplication;
  /** Closes the application and flushes telemetry (once, however often it is called). */
  readonly close: () => Promise<void>;
  /** The bound, in milliseconds. */
  readonly timeoutMs: number;
}

/** Resolves with true once everything closed, or false when the bound ran out first. */
export async function shutDown(target: ShutdownTarget): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), target.timeoutMs);
  });
  try {
    return await Promise.race([closeInOrder(target).then(() => true as const), outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}

async function closeInOrder({ app, close }: ShutdownTarget): Promise<void> {
  const inFlight = app.get(InFlightRequests);
  inFlight.draining = true;
  const server: Server = app.getHttpServer();
  // No new connections; idle keep-alive connections close now, busy ones once answered.
  const stoppedListening = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  app.get(SseClients).endAll();
  await inFlight.idle();
  // Keep-alive connections that went idle after their last answer.
  server.closeIdleConnections();
  await close();
  await stoppedListening;
}

/**
 * On SIGTERM or SIGINT, shuts `target` down and exits: 0 when everything closed within the
 * bound, 1 otherwise. A second signal while shutting down exits at once with 1.
 */
export function exitOnSignals(target: ShutdownTarget): () => void {
  const log = new Logger('memledger-shutdown');
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      process.exit(1);
    }
    shuttingDown = true;
    log.log({ msg: 'shutting down', signal, boundMs: target.timeoutMs });
    void shutDown(target).then(
      (clean) => {
        if (!clean) log.error({ msg: 'shutdown ran out of time', boundMs: target.timeoutMs });
        process.exit(clean ? 0 : 1);
      },
      (error: unknown) => {
        log.error({ msg: 'shutdown failed', error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
