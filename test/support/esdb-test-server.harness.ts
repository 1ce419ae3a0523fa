/**
 * Shared setup for the fake EventStoreDB gRPC server specs: each spec starts its own server,
 * drives it with the real `@eventstore/db-client` over 127.0.0.1 (contract:
 * shared/esdb-wire-spec.md), and everything a test opened is closed after it.
 */
import {
  EventStoreDBClient,
  jsonEvent,
  type AllStreamResolvedEvent,
  type EventData,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { EventEmitter } from 'node:events';
import {
  startEsdbTestServer,
  type EsdbTestServer,
  type EsdbTestServerOptions,
} from './esdb-test-server/index.js';

type AnyResolvedEvent = ResolvedEvent | AllStreamResolvedEvent;

/** Starts servers and connects clients for a spec; `afterEach` disposes them all. */
export function useEsdbTestServer(): {
  start: (options?: EsdbTestServerOptions) => Promise<EsdbTestServer>;
  connect: (target: EsdbTestServer) => EventStoreDBClient;
} {
  let server: EsdbTestServer | undefined;
  const clients: EventStoreDBClient[] = [];

  async function start(options?: EsdbTestServerOptions): Promise<EsdbTestServer> {
    server = await startEsdbTestServer(options);
    return server;
  }

  function connect(target: EsdbTestServer): EventStoreDBClient {
    const client = EventStoreDBClient.connectionString(target.connectionString);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    await server?.close();
    server = undefined;
  });

  return { start, connect };
}

/** `count` JSON events of `type`, each carrying its index. */
export function events(count: number, type = 'Tested'): EventData[] {
  return Array.from({ length: count }, (_, index) => jsonEvent({ type, data: { index } }));
}

/** Reads a whole client read (or any async iterable) into an array. */
export async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

/** The stream revisions of a stream read, in the order read. */
export async function revisionsOf(read: AsyncIterable<ResolvedEvent>): Promise<bigint[]> {
  return (await collect(read)).map((resolved) => resolved.event!.revision);
}

/** Resolves with the error a promise rejects with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection, but the promise resolved.');
}

/** Records what a subscription emits, with promises for the moments tests wait on. */
export function watch(subscription: Pick<EventEmitter, 'on' | 'once'>) {
  const received: AnyResolvedEvent[] = [];
  const order: string[] = [];
  let wanted: { count: number; resolve: () => void } | undefined;
  const caughtUp = new Promise<void>((resolve) => subscription.once('caughtUp', () => resolve()));
  const failed = new Promise<unknown>((resolve) => subscription.once('error', resolve));
  subscription.on('confirmation', () => order.push('confirmation'));
  subscription.on('caughtUp', () => order.push('caughtUp'));
  subscription.on('data', (resolved: AnyResolvedEvent) => {
    order.push('event');
    received.push(resolved);
    if (wanted !== undefined && received.length >= wanted.count) wanted.resolve();
  });
  return {
    received,
    order,
    caughtUp,
    failed,
    streams: () => received.map((resolved) => resolved.event!.streamId),
    until: (count: number) =>
      new Promise<void>((resolve) => {
        if (received.length >= count) resolve();
        else wanted = { count, resolve };
      }),
  };
}
