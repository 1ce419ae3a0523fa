/**
 * Catch-up subscriptions on EventStoreDB that survive a dropped connection.
 *
 * The client's `subscribeToStream` fails with UnavailableError when the node goes away and does
 * not come back by itself. This wrapper then subscribes again, after a short (growing) delay,
 * from the revision after the last event it delivered: since revision = seq and the client's
 * `fromRevision` is exclusive, resuming at "last delivered" can neither skip nor repeat an
 * event, and any event at or below it that a server might send again is dropped by seq.
 */
import type { ResolvedEvent, StreamSubscription } from '@eventstore/db-client';
import { MemoryError, type Sequenced } from '../../core/index.js';
import { isUnreachable } from './eventstoredb.errors.js';
import { decodeResolved, fail, startOf, type EsdbStream } from './eventstoredb.reads.js';

/** Longest pause between two resubscribe attempts while the node stays down. */
const MAX_RESUBSCRIBE_DELAY_MS = 5_000;
/** Events buffered before the gRPC stream is paused: a slow consumer applies backpressure. */
const HIGH_WATER = 256;

type Pulled =
  | { readonly kind: 'event'; readonly resolved: ResolvedEvent }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'ended' };

/**
 * Turns one client subscription (an event emitter) into pull-based reads. Hand-rolled rather
 * than the subscription's own async iterator because cancelling the gRPC call does not end
 * that iterator: a waiting consumer would hang after abort or close.
 */
class SubscriptionPump {
  private readonly queue: ResolvedEvent[] = [];
  private failure: { error: unknown } | undefined;
  private ended = false;
  private wake: (() => void) | undefined;
  /** The server accepted the subscription: the node was reachable this time. */
  confirmed = false;

  constructor(private readonly subscription: StreamSubscription) {
    subscription.on('confirmation', () => (this.confirmed = true));
    subscription.on('data', (resolved: ResolvedEvent) => {
      this.queue.push(resolved);
      if (this.queue.length >= HIGH_WATER) subscription.pause();
      this.notify();
    });
    subscription.on('error', (error: Error) => {
      this.failure ??= { error };
      this.notify();
    });
    subscription.on('end', () => this.end());
    subscription.on('close', () => this.end());
  }

  /** The next event, the failure, or the end; waits for one of them. */
  async next(): Promise<Pulled> {
    for (;;) {
      const resolved = this.queue.shift();
      if (resolved !== undefined) {
        if (this.queue.length < HIGH_WATER / 2 && this.subscription.isPaused()) {
          this.subscription.resume();
        }
        return { kind: 'event', resolved };
      }
      if (this.failure !== undefined) return { kind: 'failed', error: this.failure.error };
      if (this.ended) return { kind: 'ended' };
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Ends the pump and cancels the gRPC call. Safe to call more than once. */
  end(): void {
    if (!this.ended) {
      this.ended = true;
      void this.subscription.unsubscribe().catch(() => undefined);
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * Delivers the memory's events from `fromSeq` on, live, until `signal` aborts or the store
 * closes; resubscribes through outages. Other failures (a decode error, a deleted stream, a
 * gap) end it with the translated error.
 */
export async function* resilientSubscription(
  stream: EsdbStream,
  fromSeq: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<Sequenced> {
  const { context } = stream;
  const stopped = () => signal?.aborted === true || context.isClosed();
  let next = fromSeq;
  let outages = 0;
  while (!stopped()) {
    const pump = new SubscriptionPump(
      context.client.subscribeToStream(stream.streamName, { fromRevision: startOf(next) }),
    );
    // Registered for abort and close: they must cancel the call even while the consumer is
    // not pulling (an abandoned iterator suspended at a yield never reaches `finally`).
    const stop = () => pump.end();
    signal?.addEventListener('abort', stop, { once: true });
    context.closers.add(stop);
    let retry = false;
    try {
      while (!retry) {
        const pulled = await pump.next();
        if (stopped()) return;
        if (pulled.kind === 'ended') {
          retry = true;
        } else if (pulled.kind === 'failed') {
          if (!isUnreachable(pulled.error)) throw fail(stream, pulled.error, 'subscribe');
          retry = true;
        } else {
          const event = deliverable(stream, pulled.resolved, next);
          if (event === undefined) continue;
          yield event;
          next = event.seq + 1;
        }
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      context.closers.delete(stop);
      pump.end();
    }
    // Back off while the node stays down; a subscription that was confirmed starts over.
    if (pump.confirmed) outages = 0;
    const delay = Math.min(context.resubscribeDelayMs * 2 ** outages, MAX_RESUBSCRIBE_DELAY_MS);
    outages += 1;
    await pause(delay, signal, context.closers);
  }
}

/** The decoded event when it is the one expected next; `undefined` for a repeat. */
function deliverable(
  stream: EsdbStream,
  resolved: ResolvedEvent,
  next: number,
): Sequenced | undefined {
  const recorded = resolved.event;
  if (recorded?.type === '$streamDeleted') {
    throw new MemoryError(
      'STORE_FAILED',
      `${stream.where} was deleted (tombstoned) while subscribed; a memory log cannot be deleted.`,
      { details: { memoryId: stream.memoryId } },
    );
  }
  if (recorded !== undefined && Number(recorded.revision) < next) return undefined;
  const event = decodeResolved(stream, resolved);
  if (event.seq !== next) {
    throw new MemoryError(
      'LOG_INVARIANT_VIOLATED',
      `Subscription to memory ${stream.memoryId} received seq ${event.seq} where seq ${next} was expected.`,
      { details: { memoryId: stream.memoryId, expected: next, actual: event.seq } },
    );
  }
  return event;
}

/** Waits `ms`, or less when `signal` aborts or the store closes (runs its `closers`). */
function pause(
  ms: number,
  signal: AbortSignal | undefined,
  closers: Set<() => void>,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      closers.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    closers.add(done);
  });
}
