/**
 * Deleting streams on the fake EventStoreDB gRPC server (soft delete, tombstone, $maxCount), and
 * stopping and restarting the server under a connected client.
 */
import {
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  CancelledError,
  WrongExpectedVersionError,
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
  it('stop() ends an open subscription with CancelledError, as the real server shuts down, and the client works again after restart()', async () => {
    const target = await start();
    const client = connect(target);
    await client.appendToStream('durable', events(2));
    const subscription = watch(client.subscribeToStream('durable'));
    await subscription.caughtUp;

    await target.stop();
    const failure = await subscription.failed;
    await target.restart();
    const result = await client.appendToStream('durable', events(1));

    expect(failure).toBeInstanceOf(CancelledError);
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
