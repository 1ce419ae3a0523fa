/**
 * `Streams.Append`: a client stream of one options message and then one message per event,
 * answered by a single `AppendResp` (spec §3.1, `Streams.Append.cs`). Wrong expected version
 * is reported in-band with status OK; a deleted stream is a FAILED_PRECONDITION status.
 */
import { status, type Deadline, type handleClientStreamingCall } from '@grpc/grpc-js';
import {
  appendSizeOf,
  MissingMetadataError,
  parseProposedMessage,
  streamNameOf,
  toExpectedRevision,
} from './codec.js';
import {
  deadlineExceededError,
  maxAppendSizeError,
  missingMetadataError,
  serverStoppingError,
  statusError,
  streamDeletedError,
} from './errors.js';
import { sharedPb, streamsPb } from './proto.js';
import type { ServerContext } from './server-context.js';
import {
  NO_REVISION,
  type ExpectedRevision,
  type ProposedEvent,
  type WrongExpectedVersion,
} from './types.js';

type AppendReq = InstanceType<typeof streamsPb.AppendReq>;
type AppendResp = InstanceType<typeof streamsPb.AppendResp>;

/** Builds the `Append` handler. */
export function appendHandler(
  context: ServerContext,
): handleClientStreamingCall<AppendReq, AppendResp> {
  return (call, callback) => {
    context.countCall('Append');
    let header: { streamName: string; expected: ExpectedRevision } | undefined;
    const events: ProposedEvent[] = [];
    let size = 0;
    // The callback may run once only; after an early error the rest of the stream is ignored.
    let settled = false;
    const untrack = context.track(() => finish(serverStoppingError()));
    // The call's gRPC deadline (the client sends 10 s by default), enforced as the real server's
    // host enforces it: an append not complete by then fails with DEADLINE_EXCEEDED.
    const deadline = deadlineMsOf(call.getDeadline());
    const timer = Number.isFinite(deadline)
      ? setTimeout(() => finish(deadlineExceededError()), Math.max(0, deadline - Date.now()))
      : undefined;
    timer?.unref();
    function finish(...result: Parameters<typeof callback>): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      untrack();
      callback(...result);
    }

    call.on('data', (request: AppendReq) => {
      if (settled) return;
      if (header === undefined) {
        const options = request.getOptions();
        if (options === undefined) {
          finish(statusError(status.UNKNOWN, 'The first Append message must carry options.'));
          return;
        }
        header = {
          streamName: streamNameOf(options.getStreamIdentifier()),
          expected: toExpectedRevision(options, () =>
            options.hasRevision() ? options.getRevision() : undefined,
          ),
        };
        return;
      }
      const message = request.getProposedMessage();
      if (message === undefined) return;
      try {
        const event = parseProposedMessage(message);
        size += appendSizeOf(event);
        events.push(event);
      } catch (error) {
        if (error instanceof MissingMetadataError) finish(missingMetadataError());
        else throw error;
        return;
      }
      // Checked while streaming, like the server, so a huge append fails before it ends.
      if (size > context.maxAppendSize) finish(maxAppendSizeError(context.maxAppendSize));
    });
    call.on('end', () => {
      if (settled) return;
      if (Date.now() >= deadline) {
        finish(deadlineExceededError());
        return;
      }
      if (header === undefined) {
        finish(statusError(status.UNKNOWN, 'Append request without options.'));
        return;
      }
      const outcome = context.store.append(header.streamName, header.expected, events);
      switch (outcome.kind) {
        case 'stream-deleted':
          finish(streamDeletedError(header.streamName));
          return;
        case 'wrong-expected-version':
          finish(
            null,
            new streamsPb.AppendResp().setWrongExpectedVersion(toWrongExpectedVersion(outcome)),
          );
          return;
        case 'ok': {
          const success = new streamsPb.AppendResp.Success();
          if (outcome.currentRevision === NO_REVISION) success.setNoStream(new sharedPb.Empty());
          else success.setCurrentRevision(outcome.currentRevision.toString());
          if (outcome.position === undefined) success.setNoPosition(new sharedPb.Empty());
          else {
            const position = outcome.position.toString();
            success.setPosition(
              new streamsPb.AppendResp.Position()
                .setCommitPosition(position)
                .setPreparePosition(position),
            );
          }
          finish(null, new streamsPb.AppendResp().setSuccess(success));
        }
      }
    });
    call.on('cancelled', () => {
      settled = true;
      clearTimeout(timer);
      untrack();
    });
  };
}

/** A call's deadline in epoch milliseconds; Infinity when it has none. */
function deadlineMsOf(deadline: Deadline): number {
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * Fills the current (6/7) and expected (8-11) oneofs; the Rust client unwraps both, so both are
 * always set. The deprecated `*_20_6_0` fields are left out: no supported client reads them.
 */
function toWrongExpectedVersion(
  wev: WrongExpectedVersion,
): InstanceType<typeof streamsPb.AppendResp.WrongExpectedVersion> {
  const message = new streamsPb.AppendResp.WrongExpectedVersion();
  if (wev.currentRevision === NO_REVISION) message.setCurrentNoStream(new sharedPb.Empty());
  else message.setCurrentRevision(wev.currentRevision.toString());
  const { expected } = wev;
  if (expected.kind === 'exact') message.setExpectedRevision(expected.revision.toString());
  else if (expected.kind === 'any') message.setExpectedAny(new sharedPb.Empty());
  else if (expected.kind === 'no_stream') message.setExpectedNoStream(new sharedPb.Empty());
  else message.setExpectedStreamExists(new sharedPb.Empty());
  return message;
}
