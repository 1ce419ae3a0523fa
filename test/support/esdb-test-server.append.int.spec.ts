/**
 * Appending to the fake EventStoreDB gRPC server: expected revisions, idempotent retries, and
 * the same behaviour through each append RPC the client may pick.
 */
import {
  MaxAppendSizeExceededError,
  NO_STREAM,
  STREAM_EXISTS,
  StreamDeletedError,
  WrongExpectedVersionError,
  jsonEvent,
} from '@eventstore/db-client';
import type { EsdbTestServerOptions } from './esdb-test-server/index.js';
import { events, rejectionOf, revisionsOf, useEsdbTestServer } from './esdb-test-server.harness.js';

const { start, connect } = useEsdbTestServer();

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
