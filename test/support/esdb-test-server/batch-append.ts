/**
 * `Streams.BatchAppend`: one long-lived bidi call per client channel, carrying interleaved
 * appends keyed by correlation id (spec §3.2, `Streams.BatchAppend.cs`). Each append gets
 * exactly one reply; errors travel in-band as `google.rpc.Status` and the call stays open.
 */
import type { handleBidiStreamingCall } from '@grpc/grpc-js';
import {
  appendSizeOf,
  MissingMetadataError,
  parseProposedMessage,
  parseUuid,
  streamNameOf,
  toExpectedRevision,
  toStreamIdentifier,
} from './codec.js';
import {
  maxAppendSizeStatus,
  missingMetadataError,
  serverStoppingError,
  streamDeletedStatus,
  timeoutStatus,
  wrongExpectedVersionStatus,
} from './errors.js';
import { GoogleEmpty, sharedPb, streamsPb } from './proto.js';
import type { ServerContext } from './server-context.js';
import {
  NO_REVISION,
  type AppendOutcome,
  type ExpectedRevision,
  type ProposedEvent,
} from './types.js';

type BatchAppendReq = InstanceType<typeof streamsPb.BatchAppendReq>;
type BatchAppendResp = InstanceType<typeof streamsPb.BatchAppendResp>;
type Uuid = InstanceType<typeof sharedPb.UUID>;

interface PendingAppend {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly events: ProposedEvent[];
  size: number;
  /** Already answered with an error; later chunks of this id are ignored until `is_final`. */
  failed: boolean;
  /** Answers `Timeout` when the deadline passes before `is_final`. */
  readonly timer: NodeJS.Timeout | undefined;
}

/**
 * Milliseconds left until the deadline of the options (a `Timestamp`, `now + deadline` on the
 * client), or Infinity without one.
 */
function remainingMs(options: InstanceType<typeof streamsPb.BatchAppendReq.Options>): number {
  const deadline = options.getDeadline();
  if (deadline === undefined) return Number.POSITIVE_INFINITY;
  return deadline.getSeconds() * 1000 + deadline.getNanos() / 1e6 - Date.now();
}

/** Builds the `BatchAppend` handler. */
export function batchAppendHandler(
  context: ServerContext,
): handleBidiStreamingCall<BatchAppendReq, BatchAppendResp> {
  return (call) => {
    context.countCall('BatchAppend');
    const pending = new Map<string, PendingAppend>();
    let open = true;
    const untrack = context.track(() => close(() => call.emit('error', serverStoppingError())));
    function close(how: () => void): void {
      if (!open) return;
      open = false;
      for (const entry of pending.values()) clearTimeout(entry.timer);
      pending.clear();
      untrack();
      how();
    }

    // Every reply echoes the correlation UUID message and names the stream: the client needs
    // both (`batchAppend.js:21,38`), a missing one crashes it with a TypeError.
    const reply = (correlationId: Uuid | undefined, streamName: string): BatchAppendResp =>
      new streamsPb.BatchAppendResp()
        .setCorrelationId(correlationId ?? new sharedPb.UUID())
        .setStreamIdentifier(toStreamIdentifier(streamName));

    call.on('data', (request: BatchAppendReq) => {
      if (!open) return;
      const correlationId = request.getCorrelationId();
      const key = parseUuid(correlationId);
      let entry = pending.get(key);
      const options = request.getOptions();
      if (entry === undefined && options !== undefined) {
        const streamName = streamNameOf(options.getStreamIdentifier());
        // The server answers Timeout at once for a deadline already past, else when it passes
        // before the append is complete (`Streams.BatchAppend.cs`: `Max(timeout, Zero)`, and
        // the `Task.Delay(timeout)` of each pending write); the id's later chunks are ignored.
        const left = remainingMs(options);
        if (!(left > 0)) {
          call.write(reply(correlationId, streamName).setError(timeoutStatus()));
          return;
        }
        const timer = Number.isFinite(left)
          ? setTimeout(() => {
              if (!open || pending.get(key) !== entry) return;
              pending.delete(key);
              call.write(reply(correlationId, streamName).setError(timeoutStatus()));
            }, left)
          : undefined;
        timer?.unref();
        entry = {
          streamName,
          expected: toExpectedRevision(options, () =>
            options.hasStreamPosition() ? options.getStreamPosition() : undefined,
          ),
          events: [],
          size: 0,
          failed: false,
          timer,
        };
        pending.set(key, entry);
      }
      if (entry === undefined) return; // Chunks of an unknown id: nothing to attach them to.
      if (!entry.failed) {
        try {
          for (const message of request.getProposedMessagesList()) {
            const event = parseProposedMessage(message);
            entry.size += appendSizeOf(event);
            entry.events.push(event);
          }
        } catch (error) {
          // The server throws out of its receive loop here, which fails the whole call.
          if (error instanceof MissingMetadataError)
            close(() => call.emit('error', missingMetadataError()));
          else throw error;
          return;
        }
        if (entry.size > context.maxAppendSize) {
          // Answered as soon as the limit is passed, before `is_final` (lines 187-196).
          entry.failed = true;
          call.write(
            reply(correlationId, entry.streamName).setError(
              maxAppendSizeStatus(context.maxAppendSize),
            ),
          );
        }
      }
      if (!request.getIsFinal()) return;
      pending.delete(key);
      clearTimeout(entry.timer);
      if (entry.failed) return;
      const outcome = context.store.append(entry.streamName, entry.expected, entry.events);
      call.write(toResponse(reply(correlationId, entry.streamName), entry.streamName, outcome));
    });
    // The client half-closes only when it is done with the call: finish it cleanly.
    call.on('end', () => close(() => call.end()));
    call.on('cancelled', () => close(() => undefined));
    call.on('error', () => close(() => undefined));
  };
}

function toResponse(
  response: BatchAppendResp,
  streamName: string,
  outcome: AppendOutcome,
): BatchAppendResp {
  switch (outcome.kind) {
    case 'stream-deleted':
      return response.setError(streamDeletedStatus(streamName));
    case 'wrong-expected-version':
      return response.setError(wrongExpectedVersionStatus(outcome));
    case 'ok': {
      const success = new streamsPb.BatchAppendResp.Success();
      if (outcome.currentRevision === NO_REVISION) success.setNoStream(new GoogleEmpty());
      else success.setCurrentRevision(outcome.currentRevision.toString());
      if (outcome.position === undefined) success.setNoPosition(new GoogleEmpty());
      else {
        const position = outcome.position.toString();
        success.setPosition(
          new sharedPb.AllStreamPosition().setCommitPosition(position).setPreparePosition(position),
        );
      }
      return response.setSuccess(success);
    }
  }
}
