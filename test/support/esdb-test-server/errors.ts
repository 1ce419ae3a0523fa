/**
 * The two ways errors reach the client (spec §4): gRPC statuses with `exception` trailers,
 * parsed by the client's `convertToCommandError`, and in-band `google.rpc.Status` messages
 * with a packed `details` Any, parsed by BatchAppend's `unpackToCommandError`.
 */
import { Metadata, status, type ServerErrorResponse } from '@grpc/grpc-js';
import { Any, GoogleEmpty, sharedPb, statusPb } from './proto.js';
import { toStreamIdentifier } from './codec.js';
import { NO_REVISION, type ExpectedRevision, type WrongExpectedVersion } from './types.js';

type Status = InstanceType<typeof statusPb.Status>;

/** A server error with trailers; `exception` selects the client's error class. */
export function statusError(
  code: status,
  details: string,
  trailers: Readonly<Record<string, string>> = {},
): ServerErrorResponse {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(trailers)) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

/** `StreamDeletedError`. `stream-name` is mandatory: the client dereferences it. */
export function streamDeletedError(streamName: string): ServerErrorResponse {
  return statusError(status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': streamName,
  });
}

/**
 * `WrongExpectedVersionError` for Delete/Tombstone, which (unlike appends) report it as a
 * status. `expected-version` uses the server's int64 codes (`RpcExceptions.cs:104-118`).
 */
export function wrongExpectedVersionError(
  streamName: string,
  wev: WrongExpectedVersion,
): ServerErrorResponse {
  return statusError(status.FAILED_PRECONDITION, 'Wrong expected version.', {
    exception: 'wrong-expected-version',
    'stream-name': streamName,
    'expected-version': expectedVersionCode(wev.expected).toString(),
    'actual-version': wev.currentRevision === NO_REVISION ? '' : wev.currentRevision.toString(),
  });
}

/** `MaxAppendSizeExceededError`. */
export function maxAppendSizeError(maxAppendSize: number): ServerErrorResponse {
  return statusError(status.INVALID_ARGUMENT, `Maximum Append Size of ${maxAppendSize} Exceeded.`, {
    exception: 'maximum-append-size-exceeded',
    'maximum-append-size': maxAppendSize.toString(),
  });
}

/** `RequiredMetadataPropertyMissingError`. */
export function missingMetadataError(): ServerErrorResponse {
  return statusError(status.INVALID_ARGUMENT, 'Required metadata properties are missing.', {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });
}

/**
 * What `stop()` sends to open calls, as the real server does when it shuts down: its request
 * aborted token cancels every handler, which gRPC reports as CANCELLED. The client maps that to
 * `CancelledError` and reconnects on its next call (`Client/index.js:206-242`).
 */
export function serverStoppingError(): ServerErrorResponse {
  return statusError(status.CANCELLED, 'Server is shutting down.');
}

/** A call whose gRPC deadline passed: the client maps DEADLINE_EXCEEDED to `DeadlineExceededError`. */
export function deadlineExceededError(): ServerErrorResponse {
  return statusError(status.DEADLINE_EXCEEDED, 'Deadline Exceeded');
}

/**
 * In-band BatchAppend error for an append whose deadline passed before it was complete
 * (`Status.Timeout`); the client maps it to `DeadlineExceededError`.
 */
export function timeoutStatus(): Status {
  return inBandStatus(status.DEADLINE_EXCEEDED, 'Timeout', new sharedPb.Timeout(), 'Timeout');
}

/** In-band BatchAppend error for a wrong expected version (`Status.cs`). */
export function wrongExpectedVersionStatus(wev: WrongExpectedVersion): Status {
  const details = new sharedPb.WrongExpectedVersion();
  if (wev.currentRevision === NO_REVISION) details.setCurrentNoStream(new GoogleEmpty());
  else details.setCurrentStreamRevision(wev.currentRevision.toString());
  const { expected } = wev;
  if (expected.kind === 'exact') details.setExpectedStreamPosition(expected.revision.toString());
  else if (expected.kind === 'any') details.setExpectedAny(new GoogleEmpty());
  else if (expected.kind === 'no_stream') details.setExpectedNoStream(new GoogleEmpty());
  else details.setExpectedStreamExists(new GoogleEmpty());
  return inBandStatus(
    status.ALREADY_EXISTS,
    'WrongExpectedVersion',
    details,
    'WrongExpectedVersion',
  );
}

/** In-band BatchAppend error for a deleted stream. */
export function streamDeletedStatus(streamName: string): Status {
  const details = new sharedPb.StreamDeleted().setStreamIdentifier(toStreamIdentifier(streamName));
  return inBandStatus(status.NOT_FOUND, 'StreamDeleted', details, 'StreamDeleted');
}

/** In-band BatchAppend error for an append over the size limit. */
export function maxAppendSizeStatus(maxAppendSize: number): Status {
  const details = new sharedPb.MaximumAppendSizeExceeded().setMaxappendsize(maxAppendSize);
  return inBandStatus(
    status.INVALID_ARGUMENT,
    'MaximumAppendSizeExceeded',
    details,
    'MaximumAppendSizeExceeded',
  );
}

/** Server code of an expectation: the exact revision, or -2 any, -1 no_stream, -4 stream_exists. */
function expectedVersionCode(expected: ExpectedRevision): bigint {
  switch (expected.kind) {
    case 'exact':
      return expected.revision;
    case 'any':
      return -2n;
    case 'no_stream':
      return -1n;
    case 'stream_exists':
      return -4n;
  }
}

/**
 * `details` is mandatory: the client calls `details.getTypeName()` unconditionally, and the
 * type URL must be `type.googleapis.com/event_store.client.<Name>`.
 */
function inBandStatus(
  code: status,
  message: string,
  details: { serializeBinary(): Uint8Array },
  typeName: string,
): Status {
  const any = new Any();
  any.pack(details.serializeBinary(), `event_store.client.${typeName}`);
  return new statusPb.Status()
    .setCode(code as number)
    .setMessage(message)
    .setDetails(any);
}
