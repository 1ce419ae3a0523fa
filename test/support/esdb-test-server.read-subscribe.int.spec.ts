/**
 * Reading from and subscribing to the fake EventStoreDB gRPC server: stream and $all reads in
 * both directions, catch-up and live subscriptions, filters and checkpoints.
 */
import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  binaryEvent,
  jsonEvent,
  streamNameFilter,
} from '@eventstore/db-client';
import {
  collect,
  events,
  rejectionOf,
  revisionsOf,
  useEsdbTestServer,
  watch,
} from './esdb-test-server.harness.js';

const { start, connect } = useEsdbTestServer();

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
