/**
 * `Streams.Read`: decodes the request and dispatches to a finite read of a stream or of `$all`
 * (here) or to a subscription (`subscribe.ts`), following the server's dispatch table
 * (`Streams.Read.cs:110-195`); other combinations are INVALID_ARGUMENT.
 */
import { status, type handleServerStreamingCall, type ServerWritableStream } from '@grpc/grpc-js';
import { streamNameOf, toStreamIdentifier } from './codec.js';
import { statusError, streamDeletedError } from './errors.js';
import { toAllFilter, type AllFilter } from './event-filter.js';
import { fromRevision } from './stream-metadata.js';
import { responder, type Responder } from './links.js';
import { streamsPb } from './proto.js';
import type { ServerContext } from './server-context.js';
import { subscribeToAll, subscribeToStream, type AllStart, type StreamStart } from './subscribe.js';

type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
type ReadResp = InstanceType<typeof streamsPb.ReadResp>;
type ReadOptions = InstanceType<typeof streamsPb.ReadReq.Options>;

/** The server-streaming call of `Read`. */
export type ReadCall = ServerWritableStream<ReadReq, ReadResp>;

const { ReadDirection, CountOptionCase } = streamsPb.ReadReq.Options;

/** Builds the `Read` handler. */
export function readHandler(context: ServerContext): handleServerStreamingCall<ReadReq, ReadResp> {
  return (call) => {
    context.countCall('Read');
    const options = call.request.getOptions();
    // The real server rejects a request without `uuid_option` (`Streams.Read.cs:56-59`).
    if (options === undefined || !options.hasUuidOption()) {
      call.emit(
        'error',
        statusError(status.INVALID_ARGUMENT, 'Read options with uuid_option are required.'),
      );
      return;
    }
    const structured = options.getUuidOption()!.hasStructured();
    const respond = responder(context.store, structured, options.getResolveLinks());
    const backwards = options.getReadDirection() === ReadDirection.BACKWARDS;
    const subscription = options.getCountOptionCase() === CountOptionCase.SUBSCRIPTION;
    const invalid = (what: string): void =>
      void call.emit(
        'error',
        statusError(status.INVALID_ARGUMENT, `The combination of ${what} is invalid.`),
      );
    let filter: AllFilter | undefined;
    try {
      filter = options.hasFilter() ? toAllFilter(options.getFilter()!) : undefined;
    } catch {
      // A regex JS cannot compile: fail this call rather than throw out of the handler.
      return invalid('an invalid filter regex and a read');
    }

    const streamOptions = options.getStream();
    if (streamOptions !== undefined) {
      if (filter !== undefined) return invalid('a filter and a stream read');
      const streamName = streamNameOf(streamOptions.getStreamIdentifier());
      const start: StreamStart = streamOptions.hasRevision()
        ? { kind: 'revision', revision: BigInt(streamOptions.getRevision()) }
        : streamOptions.hasEnd()
          ? { kind: 'end' }
          : { kind: 'start' };
      if (!subscription) return readStream(context, call, options, streamName, start, respond);
      if (backwards) return invalid('a backwards subscription');
      return subscribeToStream(context, call, streamName, start, respond);
    }
    const allOptions = options.getAll();
    if (allOptions === undefined) return invalid('a read without stream_option');
    const position = allOptions.getPosition();
    const start: AllStart =
      position !== undefined
        ? { kind: 'position', position: BigInt(position.getCommitPosition()) }
        : allOptions.hasEnd()
          ? { kind: 'end' }
          : { kind: 'start' };
    if (!subscription) return readAll(context, call, options, start, filter, respond);
    if (backwards) return invalid('a backwards subscription');
    return subscribeToAll(context, call, start, filter, respond);
  };
}

/**
 * Finite read of one stream (`Enumerator.ReadStreamForwards.cs`): revisions are inclusive;
 * a missing or soft-deleted stream is an in-band `stream_not_found` with status OK.
 */
function readStream(
  context: ServerContext,
  call: ReadCall,
  options: ReadOptions,
  streamName: string,
  start: StreamStart,
  respond: Responder,
): void {
  const result = context.store.readStream(streamName);
  if (result.kind === 'stream-deleted') {
    call.emit('error', streamDeletedError(streamName));
    return;
  }
  if (result.kind === 'not-found') {
    const notFound = new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(
      toStreamIdentifier(streamName),
    );
    call.write(new streamsPb.ReadResp().setStreamNotFound(notFound));
    call.end();
    return;
  }
  const backwards = options.getReadDirection() === ReadDirection.BACKWARDS;
  const all = result.events;
  const count = countOf(options);
  // Only the events returned are visited (revision order: a binary search finds the start).
  if (backwards) {
    const from = start.kind === 'revision' ? fromRevision(all, start.revision + 1n) : all.length;
    for (let i = from - 1; i >= 0 && from - i <= count; i--) call.write(respond(all[i]!));
  } else if (start.kind !== 'end') {
    // Forwards from the end has nothing to read.
    const from = start.kind === 'revision' ? fromRevision(all, start.revision) : 0;
    for (let i = from; i < all.length && i - from < count; i++) call.write(respond(all[i]!));
  }
  // Compatibility level 1 (the Rust client) also gets the last revision; others ignore it.
  const lastEvent = result.events.at(-1);
  if ((options.getControlOption()?.getCompatibility() ?? 0) >= 1 && lastEvent !== undefined) {
    call.write(new streamsPb.ReadResp().setLastStreamPosition(lastEvent.revision.toString()));
  }
  call.end();
}

/**
 * Finite read of `$all` (`AllReader.cs`): forwards from P is inclusive, backwards from P is
 * exclusive; with a filter, `count` counts matching records.
 */
function readAll(
  context: ServerContext,
  call: ReadCall,
  options: ReadOptions,
  start: AllStart,
  filter: AllFilter | undefined,
  respond: Responder,
): void {
  const backwards = options.getReadDirection() === ReadDirection.BACKWARDS;
  let records = context.store.allRecords();
  if (backwards) {
    records = [...records].reverse();
    if (start.kind === 'position')
      records = records.filter((record) => record.position < start.position);
  } else if (start.kind === 'position') {
    records = records.filter((record) => record.position >= start.position);
  } else if (start.kind === 'end') {
    records = [];
  }
  if (filter !== undefined) records = records.filter(filter.matches);
  for (const record of records.slice(0, countOf(options))) call.write(respond(record));
  call.end();
}

/** `count` is a uint64 string; the client's default is `Number.MAX_SAFE_INTEGER`. */
function countOf(options: ReadOptions): number {
  const count = BigInt(options.getCount());
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}
