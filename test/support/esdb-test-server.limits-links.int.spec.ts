/**
 * The fake EventStoreDB server is as strict as the real one, no stricter: the append size counts
 * what EventStoreDB 24.10 counts, advertised deadlines are enforced, `resolveLinkTos` resolves
 * `$>` links, and shutting down ends open calls with CANCELLED (spec §3.2, §5.6, §6).
 */
import {
  binaryEvent,
  CancelledError,
  DeadlineExceededError,
  jsonEvent,
  MaxAppendSizeExceededError,
  type EventData,
} from '@eventstore/db-client';
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status,
  type ClientDuplexStream,
  type ClientWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import type { EsdbTestServer, EsdbTestServerOptions } from './esdb-test-server/index.js';
import { sharedPb, streamsGrpc, streamsPb } from './esdb-test-server/proto.js';
import { collect, rejectionOf, useEsdbTestServer, watch } from './esdb-test-server.harness.js';
import timestampPb from 'google-protobuf/google/protobuf/timestamp_pb.js';

const { start, connect } = useEsdbTestServer();

/** The official client suite's test events: `{"message":"test","index":i}` of type `test`. */
const testEvents = (count: number): EventData[] =>
  Array.from({ length: count }, (_, index) =>
    jsonEvent({ type: 'test', data: { message: 'test', index } }),
  );

type BatchAppendReq = InstanceType<typeof streamsPb.BatchAppendReq>;
type BatchAppendResp = InstanceType<typeof streamsPb.BatchAppendResp>;

type AppendReq = InstanceType<typeof streamsPb.AppendReq>;

/** The Streams service's calls as bare gRPC, so a test controls every message and its timing. */
interface RawStreamsClient {
  batchAppend(): ClientDuplexStream<BatchAppendReq, BatchAppendResp>;
  append(
    metadata: Metadata,
    callback: (error: ServiceError | null) => void,
  ): ClientWritableStream<AppendReq>;
}

function rawStreamsClient(server: EsdbTestServer): RawStreamsClient {
  const Client = makeGenericClientConstructor(streamsGrpc.StreamsService, 'Streams');
  return new Client(
    `127.0.0.1:${server.port}`,
    credentials.createInsecure(),
  ) as unknown as RawStreamsClient;
}

/** A bare BatchAppend call. */
function rawBatchAppend(
  server: EsdbTestServer,
): ClientDuplexStream<BatchAppendReq, BatchAppendResp> {
  const call = rawStreamsClient(server).batchAppend();
  call.on('error', () => undefined); // a test's own cancel() ends it with CANCELLED
  return call;
}

/** The first chunk of an append to `stream` with a deadline `deadlineMs` from now. */
function firstChunk(stream: string, deadlineMs: number, isFinal: boolean): BatchAppendReq {
  const options = new streamsPb.BatchAppendReq.Options()
    .setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream)))
    .setAny(new sharedPb.Empty())
    .setDeadline(timestampPb.Timestamp.fromDate(new Date(Date.now() + deadlineMs)));
  return new streamsPb.BatchAppendReq()
    .setCorrelationId(new sharedPb.UUID().setString(randomUUID()))
    .setOptions(options)
    .setIsFinal(isFinal);
}

/** A bare Append call with `metadata` as its headers, and its reply. */
function rawAppend(
  server: EsdbTestServer,
  metadata: Metadata,
): { call: ClientWritableStream<AppendReq>; reply: Promise<ServiceError | null> } {
  let call!: ClientWritableStream<AppendReq>;
  const reply = new Promise<ServiceError | null>((resolve) => {
    call = rawStreamsClient(server).append(metadata, resolve);
  });
  return { call, reply };
}

/** The options message, then one message per event, of an Append to `stream`. */
function appendMessages(stream: string, count: number): AppendReq[] {
  const options = new streamsPb.AppendReq.Options()
    .setStreamIdentifier(new sharedPb.StreamIdentifier().setStreamName(Buffer.from(stream)))
    .setAny(new sharedPb.Empty());
  const events = Array.from({ length: count }, () => {
    const message = new streamsPb.AppendReq.ProposedMessage()
      .setId(new sharedPb.UUID().setString(randomUUID()))
      .setData(Buffer.from('{}'));
    message.getMetadataMap().set('type', 'test').set('content-type', 'application/json');
    return new streamsPb.AppendReq().setProposedMessage(message);
  });
  return [new streamsPb.AppendReq().setOptions(options), ...events];
}

const nextReply = (call: ClientDuplexStream<BatchAppendReq, BatchAppendResp>) =>
  new Promise<BatchAppendResp>((resolve) => call.once('data', resolve));

const timeoutCode = status.DEADLINE_EXCEEDED as number;

/** Tens of thousands of events take more than the client's default 10 s on a loaded 2-core box. */
const SLOW_MACHINE = { deadline: 120_000 };

describe.each<[string, EsdbTestServerOptions]>([
  ['BatchAppend', {}],
  ['Append', { advertiseBatchAppend: false }],
])('esdb test server: the append size as EventStoreDB 24.10 counts it (%s)', (_, options) => {
  it('accepts 30,000 small events in one append: only their data counts, ~0.95 MB of 1 MiB', async () => {
    const client = connect(await start(options));

    const result = await client.appendToStream('thirty-thousand', testEvents(30_000), SLOW_MACHINE);

    expect(result.nextExpectedRevision).toBe(29_999n);
  });

  it('refuses 40,000 small events (~1.27 MB of data) with MaxAppendSizeExceededError naming 1 MiB', async () => {
    const client = connect(await start(options));

    const error = await rejectionOf(
      client.appendToStream('forty-thousand', testEvents(40_000), SLOW_MACHINE),
    );

    expect(error).toBeInstanceOf(MaxAppendSizeExceededError);
    expect((error as MaxAppendSizeExceededError).maxAppendSize).toBe(1024 * 1024);
  });

  it('counts neither custom metadata nor the type: data of exactly the limit fits', async () => {
    const client = connect(await start({ ...options, maxAppendSize: 1000 }));
    const data = new Uint8Array(1000);

    await client.appendToStream(
      'exact',
      binaryEvent({ type: 'a-long-type-name', data, metadata: new Uint8Array(500) }),
    );
    const over = await rejectionOf(
      client.appendToStream('over', binaryEvent({ type: 't', data: new Uint8Array(1001) })),
    );

    expect(over).toBeInstanceOf(MaxAppendSizeExceededError);
  });

  // Whether any of it is written is not asserted here: at its deadline the client resets an
  // Append call, and Node's HTTP/2 sends END_STREAM before the RST_STREAM, so a server (this one
  // or EventStoreDB) can take the events that had arrived for the whole request. Raw calls below
  // check that nothing is written when the server's own deadline decides.
  it('answers an append with a 1 ms deadline with DeadlineExceededError', async () => {
    const client = connect(await start(options));

    const error = await rejectionOf(
      client.appendToStream('late', testEvents(30_000), { deadline: 1 }),
    );

    expect(error).toBeInstanceOf(DeadlineExceededError);
  });
});

describe('esdb test server: BatchAppend deadlines', () => {
  it('answers Timeout at once when the deadline has already passed', async () => {
    const call = rawBatchAppend(await start());
    const reply = nextReply(call);

    call.write(firstChunk('past', -1, true));

    expect((await reply).getError()?.getCode()).toBe(timeoutCode);
    expect((await reply).getStreamIdentifier()).toBeDefined();
    call.cancel();
  });

  it('answers Timeout when the deadline passes before the final chunk, and ignores that chunk', async () => {
    const server = await start();
    const call = rawBatchAppend(server);
    const replies: BatchAppendResp[] = [];
    call.on('data', (reply: BatchAppendResp) => replies.push(reply));
    const first = firstChunk('slow', 50, false);

    call.write(first);
    await new Promise((resolve) => setTimeout(resolve, 150));
    call.write(
      new streamsPb.BatchAppendReq().setCorrelationId(first.getCorrelationId()).setIsFinal(true),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(replies.map((reply) => reply.getError()?.getCode())).toEqual([timeoutCode]);
    expect(await rejectionOf(collect(connect(server).readStream('slow')))).toMatchObject({
      type: 'stream-not-found',
    });
    call.cancel();
  });
});

describe('esdb test server: Append deadlines', () => {
  it('answers DEADLINE_EXCEEDED when the gRPC deadline passes before the request ends, and writes nothing', async () => {
    const server = await start({ advertiseBatchAppend: false });
    // The timeout header alone, so the server's deadline decides, not a reset by the client.
    const metadata = new Metadata();
    metadata.set('grpc-timeout', '50m');
    const { call, reply } = rawAppend(server, metadata);

    for (const message of appendMessages('slow', 2)) call.write(message);
    // The request ends only after the answer, so the server decided before it could complete.
    const answer = await reply;
    call.end();

    expect(answer?.code).toBe(timeoutCode);
    expect(await rejectionOf(collect(connect(server).readStream('slow')))).toMatchObject({
      type: 'stream-not-found',
    });
  });
});

describe('esdb test server: resolveLinkTos on stream reads', () => {
  it('returns a link as its target event with the link beside it, at the link position', async () => {
    const client = connect(await start());
    await client.appendToStream('origin', testEvents(3));
    const appended = await client.appendToStream(
      'links',
      binaryEvent({ type: '$>', data: Buffer.from('1@origin') }),
    );

    const [resolved] = await collect(client.readStream('links', { resolveLinkTos: true }));
    const [raw] = await collect(client.readStream('links'));

    expect(resolved?.event).toMatchObject({ streamId: 'origin', revision: 1n, type: 'test' });
    expect(resolved?.event?.data).toEqual({ message: 'test', index: 1 });
    expect(resolved?.link).toMatchObject({ streamId: 'links', revision: 0n, type: '$>' });
    expect(resolved?.commitPosition).toBe(appended.position?.commit);
    expect(raw?.event).toMatchObject({ streamId: 'links', type: '$>' });
    expect(raw?.link).toBeUndefined();
  });

  it('returns only the link when its target does not exist', async () => {
    const client = connect(await start());
    await client.appendToStream('origin', testEvents(1));
    await client.appendToStream('links', [
      binaryEvent({ type: '$>', data: Buffer.from('7@origin') }),
      binaryEvent({ type: '$>', data: Buffer.from('0@nowhere') }),
    ]);

    const read = await collect(client.readStream('links', { resolveLinkTos: true }));

    expect(read.map((resolved) => resolved.event)).toEqual([undefined, undefined]);
    expect(read.map((resolved) => resolved.link?.revision)).toEqual([0n, 1n]);
  });

  it('resolves links on a stream subscription too', async () => {
    const client = connect(await start());
    await client.appendToStream('origin', testEvents(2));
    await client.appendToStream(
      'links',
      binaryEvent({ type: '$>', data: Buffer.from('0@origin') }),
    );
    const subscription = watch(client.subscribeToStream('links', { resolveLinkTos: true }));

    await subscription.until(1);
    await subscription.caughtUp;

    expect(subscription.received[0]?.event).toMatchObject({ streamId: 'origin', revision: 0n });
    expect(subscription.received[0]?.link).toMatchObject({ streamId: 'links', type: '$>' });
  });
});

describe('esdb test server: shutdown ends open calls with CANCELLED', () => {
  it('ends an open BatchAppend call with CANCELLED', async () => {
    const server = await start();
    const call = rawBatchAppend(server);
    const ended = new Promise<ServiceError>((resolve) => call.on('error', resolve));
    call.on('data', () => undefined);
    call.write(firstChunk('open', 10_000, false));
    while (server.rpcCount('BatchAppend') === 0) await new Promise((r) => setTimeout(r, 5));

    await server.stop();

    expect((await ended).code).toBe(status.CANCELLED);
  });

  it('ends an open subscription with CancelledError, and the client works again after restart()', async () => {
    const server = await start();
    const client = connect(server);
    await client.appendToStream('durable', testEvents(1));
    const subscription = watch(client.subscribeToStream('durable'));
    await subscription.caughtUp;

    await server.stop();
    const failure = await subscription.failed;
    await server.restart();

    expect(failure).toBeInstanceOf(CancelledError);
    expect((await client.appendToStream('durable', testEvents(1))).nextExpectedRevision).toBe(1n);
  });
});
