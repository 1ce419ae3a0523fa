/**
 * Behaviour of the fake EventStoreDB gRPC server, driven end to end by the real
 * `@eventstore/db-client` over 127.0.0.1 (contract: shared/esdb-wire-spec.md).
 */
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  binaryEvent,
  jsonEvent,
  streamNameFilter,
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

function events(count: number, type = 'Tested'): EventData[] {
  return Array.from({ length: count }, (_, index) => jsonEvent({ type, data: { index } }));
}

async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}

async function revisionsOf(read: AsyncIterable<ResolvedEvent>): Promise<bigint[]> {
  return (await collect(read)).map((resolved) => resolved.event!.revision);
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection, but the promise resolved.');
}

/** Records what a subscription emits, with promises for the moments tests wait on. */
function watch(subscription: Pick<EventEmitter, 'on' | 'once'>) {
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

describe('esdb test server: append and read', () => {
  it('appends events and reads them back with type, data, metadata, id and position', async () => {
    const client = connect(await start());
    const proposed = [
      jsonEvent({ type: 'Opened', data: { a: 1 }, metadata: { by: 'me' } }),
      binaryEvent({ type: 'Blob', data: Uint8Array.from([1, 2, 3]) }),
    ];

    const result = await client.appendToStream('order-1', proposed);
    const [first, second] = (await collect(client.readStream('order-1'))).map(
      (resolved) => resolved.event!,
    );

    expect(result.success).toBe(true);
    expect(first).toMatchObject({
      streamId: 'order-1',
      id: proposed[0]!.id,
      type: 'Opened',
      isJson: true,
    });
    expect(first!.data).toEqual({ a: 1 });
    expect(first!.metadata).toEqual({ by: 'me' });
    expect(second).toMatchObject({ id: proposed[1]!.id, type: 'Blob', isJson: false });
    expect(Array.from(second!.data as Uint8Array)).toEqual([1, 2, 3]);
    expect(second!.position).toEqual(result.position);
    expect(Math.abs(first!.created.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('numbers stream revisions from 0 and returns the next expected revision', async () => {
    const client = connect(await start());

    const firstAppend = await client.appendToStream('counter', events(3));
    const secondAppend = await client.appendToStream('counter', events(2));

    expect(firstAppend.nextExpectedRevision).toBe(2n);
    expect(secondAppend.nextExpectedRevision).toBe(4n);
    expect(await revisionsOf(client.readStream('counter'))).toEqual([0n, 1n, 2n, 3n, 4n]);
  });

  it('reads a stream backwards from the end, and from a revision in both directions inclusively', async () => {
    const client = connect(await start());
    await client.appendToStream('dir', events(5));

    expect(
      await revisionsOf(client.readStream('dir', { direction: BACKWARDS, fromRevision: END })),
    ).toEqual([4n, 3n, 2n, 1n, 0n]);
    expect(
      await revisionsOf(client.readStream('dir', { direction: BACKWARDS, fromRevision: 2n })),
    ).toEqual([2n, 1n, 0n]);
    expect(
      await revisionsOf(client.readStream('dir', { direction: FORWARDS, fromRevision: 3n })),
    ).toEqual([3n, 4n]);
  });

  it('stops a read after maxCount events, and returns nothing past the end', async () => {
    const client = connect(await start());
    await client.appendToStream('counted', events(10));

    expect(await revisionsOf(client.readStream('counted', { maxCount: 3 }))).toEqual([0n, 1n, 2n]);
    expect(
      await revisionsOf(
        client.readStream('counted', { direction: BACKWARDS, fromRevision: END, maxCount: 2 }),
      ),
    ).toEqual([9n, 8n]);
    expect(await revisionsOf(client.readStream('counted', { fromRevision: 50n }))).toEqual([]);
  });

  it('reads $all in commit order both ways, including a system record the user did not write', async () => {
    const client = connect(await start());
    await client.appendToStream('all-a', events(2));
    await client.appendToStream('all-b', events(1));

    const forwards = await collect(client.readAll({ fromPosition: START }));
    const backwards = await collect(
      client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 2 }),
    );
    const streams = forwards.map((resolved) => resolved.event!.streamId);
    const positions = forwards.map((resolved) => resolved.event!.position.commit);

    expect(streams).toEqual(['$$$scavenges', 'all-a', 'all-a', 'all-b']);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    expect(backwards.map((resolved) => resolved.event!.streamId)).toEqual(['all-b', 'all-a']);
  });

  it('reads $all from a position: forwards includes it, backwards excludes it', async () => {
    const client = connect(await start());
    await client.appendToStream('pos', events(3));
    const all = await collect(client.readAll());
    const middle = all[2]!.event!.position;

    const forwards = await collect(client.readAll({ fromPosition: middle }));
    const backwards = await collect(client.readAll({ direction: BACKWARDS, fromPosition: middle }));

    expect(forwards.map((resolved) => resolved.event!.revision)).toEqual([1n, 2n]);
    expect(backwards.map((resolved) => resolved.event!.streamId)).toEqual(['pos', '$$$scavenges']);
  });

  it('throws StreamNotFoundError when reading a stream that does not exist', async () => {
    const client = connect(await start());

    const error = await rejectionOf(collect(client.readStream('missing')));

    expect(error).toBeInstanceOf(StreamNotFoundError);
    expect((error as StreamNotFoundError).streamName).toBe('missing');
  });
});

describe('esdb test server: expected revisions and idempotency', () => {
  it('rejects a wrong exact revision with WrongExpectedVersionError carrying stream, expected and actual', async () => {
    const client = connect(await start());
    await client.appendToStream('wev', events(3));

    const error = await rejectionOf(
      client.appendToStream('wev', events(1), { expectedRevision: 5n }),
    );

    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ streamName: 'wev', expectedVersion: 5n, actualVersion: 2n });
  });

  it('rejects no_stream on an existing stream and stream_exists on a missing one', async () => {
    const client = connect(await start());
    await client.appendToStream('exists', events(1));

    const noStream = await rejectionOf(
      client.appendToStream('exists', events(1), { expectedRevision: NO_STREAM }),
    );
    const streamExists = await rejectionOf(
      client.appendToStream('absent', events(1), { expectedRevision: STREAM_EXISTS }),
    );

    expect(noStream).toMatchObject({
      streamName: 'exists',
      expectedVersion: 'no_stream',
      actualVersion: 0n,
    });
    expect(noStream).toBeInstanceOf(WrongExpectedVersionError);
    expect(streamExists).toMatchObject({
      streamName: 'absent',
      expectedVersion: 'stream_exists',
      actualVersion: 'no_stream',
    });
  });

  it('accepts no_stream on a new stream, stream_exists on an existing one and the exact current revision', async () => {
    const client = connect(await start());

    await client.appendToStream('ok', events(1), { expectedRevision: NO_STREAM });
    await client.appendToStream('ok', events(1), { expectedRevision: STREAM_EXISTS });
    const exact = await client.appendToStream('ok', events(1), { expectedRevision: 1n });

    expect(exact.nextExpectedRevision).toBe(2n);
  });

  it('answers a retry of the same event ids after the same revision with the original result and writes nothing', async () => {
    const client = connect(await start());
    const batch = events(2);
    const original = await client.appendToStream('retry', batch, { expectedRevision: NO_STREAM });
    await client.appendToStream('retry', events(1));

    const retried = await client.appendToStream('retry', batch, { expectedRevision: NO_STREAM });

    expect(retried).toEqual(original);
    expect(await revisionsOf(client.readStream('retry'))).toEqual([0n, 1n, 2n]);
  });

  it('treats a retry under any expected revision as idempotent when the ids are already in the stream', async () => {
    const client = connect(await start());
    const batch = events(3);
    const original = await client.appendToStream('retry-any', batch);

    const retried = await client.appendToStream('retry-any', batch);

    expect(retried).toEqual(original);
    expect(await revisionsOf(client.readStream('retry-any'))).toEqual([0n, 1n, 2n]);
  });
});

describe.each<[string, EsdbTestServerOptions, 'BatchAppend' | 'Append']>([
  ['BatchAppend (advertised by GetSupportedMethods)', {}, 'BatchAppend'],
  ['Append (batchappend not advertised)', { advertiseBatchAppend: false }, 'Append'],
  ['Append (ServerFeatures unimplemented)', { serverFeatures: false }, 'Append'],
])('esdb test server: appending through %s', (_title, options, rpc) => {
  it('writes many events in one appendToStream call through the expected RPC', async () => {
    const target = await start(options);
    const client = connect(target);

    // A small batchAppendSize forces BatchAppend to split the append into many chunks.
    const result = await client.appendToStream('many', events(500), { batchAppendSize: 4 * 1024 });
    const read = await revisionsOf(client.readStream('many'));

    expect(result.nextExpectedRevision).toBe(499n);
    expect(read).toHaveLength(500);
    expect(read.at(-1)).toBe(499n);
    expect(target.rpcCount(rpc)).toBeGreaterThan(0);
    expect(target.rpcCount(rpc === 'Append' ? 'BatchAppend' : 'Append')).toBe(0);
  });

  it('reports a wrong expected version with its fields', async () => {
    const client = connect(await start(options));
    await client.appendToStream('path-wev', events(2));

    const error = await rejectionOf(
      client.appendToStream('path-wev', events(1), { expectedRevision: 0n }),
    );

    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ streamName: 'path-wev', expectedVersion: 0n, actualVersion: 1n });
  });

  it('rejects an append larger than the max append size with MaxAppendSizeExceededError', async () => {
    const client = connect(await start({ ...options, maxAppendSize: 1024 }));

    const error = await rejectionOf(
      client.appendToStream(
        'too-big',
        jsonEvent({ type: 'Big', data: { text: 'x'.repeat(4096) } }),
      ),
    );

    expect(error).toBeInstanceOf(MaxAppendSizeExceededError);
    expect((error as MaxAppendSizeExceededError).maxAppendSize).toBe(1024);
  });

  it('rejects an append to a tombstoned stream with StreamDeletedError', async () => {
    const client = connect(await start(options));
    await client.appendToStream('gone', events(1));
    await client.tombstoneStream('gone');

    const error = await rejectionOf(client.appendToStream('gone', events(1)));

    expect(error).toBeInstanceOf(StreamDeletedError);
    expect((error as StreamDeletedError).streamName).toBe('gone');
  });
});

describe('esdb test server: subscriptions', () => {
  it('subscribeToStream confirms, catches up, signals caughtUp, then delivers live events', async () => {
    const client = connect(await start());
    await client.appendToStream('live', events(2));
    const subscription = watch(client.subscribeToStream('live'));

    await subscription.caughtUp;
    await client.appendToStream('live', events(1));
    await client.appendToStream('other', events(1));
    await subscription.until(3);

    expect(subscription.order).toEqual(['confirmation', 'event', 'event', 'caughtUp', 'event']);
    expect(subscription.received.map((resolved) => resolved.event!.revision)).toEqual([0n, 1n, 2n]);
  });

  it('subscribeToStream from a revision delivers only the events after it', async () => {
    const client = connect(await start());
    await client.appendToStream('after', events(4));
    const subscription = watch(client.subscribeToStream('after', { fromRevision: 2n }));

    await subscription.caughtUp;

    expect(subscription.received.map((resolved) => resolved.event!.revision)).toEqual([3n]);
  });

  it('subscribeToAll with a stream-name prefix filter delivers only matching streams, caught up and live', async () => {
    const client = connect(await start());
    await client.appendToStream('order-1', events(1));
    await client.appendToStream('invoice-1', events(1));
    const subscription = watch(
      client.subscribeToAll({ filter: streamNameFilter({ prefixes: ['order-'] }) }),
    );

    await subscription.caughtUp;
    await client.appendToStream('invoice-2', events(1));
    await client.appendToStream('order-2', events(2));
    await subscription.until(3);

    expect(subscription.streams()).toEqual(['order-1', 'order-2', 'order-2']);
  });

  it('filtered subscribeToAll reports checkpoints: one at the end of catch-up at the last $all position', async () => {
    const client = connect(await start());
    await client.appendToStream('noise', events(3));
    const checkpoints: bigint[] = [];
    const filter = streamNameFilter({
      prefixes: ['signal-'],
      checkpointReached: (_subscription, position) => {
        checkpoints.push(position.commit);
      },
    });
    const subscription = watch(client.subscribeToAll({ filter }));

    await subscription.caughtUp;
    const last = (
      await collect(client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }))
    )[0]!;

    expect(subscription.received).toHaveLength(0);
    expect(checkpoints).toEqual([last.event!.position.commit]);
  });

  it('a live stream subscription receives the tombstone and then fails with StreamDeletedError', async () => {
    const client = connect(await start());
    await client.appendToStream('doomed', events(1));
    const subscription = watch(client.subscribeToStream('doomed'));
    await subscription.caughtUp;

    await client.tombstoneStream('doomed');

    expect(await subscription.failed).toBeInstanceOf(StreamDeletedError);
    expect(subscription.received.map((resolved) => resolved.event!.type)).toEqual([
      'Tested',
      '$streamDeleted',
    ]);
  });
});

describe('esdb test server: delete and tombstone', () => {
  it('deleteStream soft-deletes: reads then throw StreamNotFoundError while $all keeps the events', async () => {
    const client = connect(await start());
    await client.appendToStream('soft', events(2));

    await client.deleteStream('soft');

    expect(await rejectionOf(collect(client.readStream('soft')))).toBeInstanceOf(
      StreamNotFoundError,
    );
    const all = await collect(client.readAll());
    expect(all.filter((resolved) => resolved.event!.streamId === 'soft')).toHaveLength(2);
  });

  it('appending to a soft-deleted stream continues its revisions and hides the old events', async () => {
    const client = connect(await start());
    await client.appendToStream('undelete', events(3));
    await client.deleteStream('undelete');

    const result = await client.appendToStream('undelete', events(1));

    expect(result.nextExpectedRevision).toBe(3n);
    expect(await revisionsOf(client.readStream('undelete'))).toEqual([3n]);
  });

  it('deleteStream with a wrong expected revision, or of a stream that never existed, is WrongExpectedVersionError', async () => {
    const client = connect(await start());
    await client.appendToStream('guarded', events(2));

    const wrong = await rejectionOf(client.deleteStream('guarded', { expectedRevision: 0n }));
    const missing = await rejectionOf(client.deleteStream('never'));

    expect(wrong).toBeInstanceOf(WrongExpectedVersionError);
    expect(wrong).toMatchObject({ streamName: 'guarded', expectedVersion: 0n, actualVersion: 1n });
    expect(missing).toMatchObject({ streamName: 'never', actualVersion: 'no_stream' });
  });

  it('tombstoneStream makes reads and further deletes throw StreamDeletedError', async () => {
    const client = connect(await start());
    await client.appendToStream('hard', events(1));

    const tombstoned = await client.tombstoneStream('hard');

    expect(tombstoned.position).toBeDefined();
    expect(await rejectionOf(collect(client.readStream('hard')))).toBeInstanceOf(
      StreamDeletedError,
    );
    expect(await rejectionOf(client.tombstoneStream('hard'))).toBeInstanceOf(StreamDeletedError);
    expect(await rejectionOf(client.deleteStream('hard'))).toBeInstanceOf(StreamDeletedError);
  });

  it('tombstoneStream of a stream that never existed succeeds, and reads then throw StreamDeletedError', async () => {
    const client = connect(await start());

    await client.tombstoneStream('never-written', { expectedRevision: NO_STREAM });

    expect(await rejectionOf(collect(client.readStream('never-written')))).toBeInstanceOf(
      StreamDeletedError,
    );
  });

  it('honours $maxCount written with setStreamMetadata and reads it back with getStreamMetadata', async () => {
    const client = connect(await start());
    await client.appendToStream('capped', events(5));

    await client.setStreamMetadata('capped', { maxCount: 2 });

    expect((await client.getStreamMetadata('capped')).metadata).toMatchObject({ maxCount: 2 });
    expect(await revisionsOf(client.readStream('capped'))).toEqual([3n, 4n]);
  });
});

describe('esdb test server: stop and restart', () => {
  it('stop() fails an open subscription with UnavailableError and the client works again after restart()', async () => {
    const target = await start();
    const client = connect(target);
    await client.appendToStream('durable', events(2));
    const subscription = watch(client.subscribeToStream('durable'));
    await subscription.caughtUp;

    await target.stop();
    const failure = await subscription.failed;
    await target.restart();
    const result = await client.appendToStream('durable', events(1));

    expect(failure).toBeInstanceOf(UnavailableError);
    expect(result.nextExpectedRevision).toBe(2n);
    expect(await revisionsOf(client.readStream('durable'))).toEqual([0n, 1n, 2n]);
  });

  it('restart() listens on the same port and keeps the data for a client that had no open call', async () => {
    const target = await start();
    await connect(target).appendToStream('kept', events(1));
    // This client only reads, so stop() has no call of its to fail: its channel just drops.
    const reader = connect(target);
    expect(await revisionsOf(reader.readStream('kept'))).toEqual([0n]);
    const { port } = target;

    await target.stop();
    await target.restart();

    expect(target.port).toBe(port);
    expect(await revisionsOf(reader.readStream('kept'))).toEqual([0n]);
  });

  it('refuses restart() after close()', async () => {
    const target = await start();

    await target.close();

    await expect(target.restart()).rejects.toThrow(/closed/);
  });
});
