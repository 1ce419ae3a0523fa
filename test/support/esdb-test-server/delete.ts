/**
 * `Streams.Delete` (soft delete) and `Streams.Tombstone` (hard delete), both unary
 * (spec §3.4, `Streams.Delete.cs`). Unlike appends, wrong expected version is a
 * FAILED_PRECONDITION status with trailers here.
 */
import type { handleUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { streamNameOf, toExpectedRevision } from './codec.js';
import { streamDeletedError, wrongExpectedVersionError } from './errors.js';
import { streamsPb } from './proto.js';
import type { ServerContext } from './server-context.js';
import type { DeleteOutcome } from './types.js';

type DeleteReq = InstanceType<typeof streamsPb.DeleteReq>;
type DeleteResp = InstanceType<typeof streamsPb.DeleteResp>;
type TombstoneReq = InstanceType<typeof streamsPb.TombstoneReq>;
type TombstoneResp = InstanceType<typeof streamsPb.TombstoneResp>;

/** Builds the `Delete` handler. */
export function deleteHandler(context: ServerContext): handleUnaryCall<DeleteReq, DeleteResp> {
  return (call, callback) => {
    context.countCall('Delete');
    const options = call.request.getOptions() ?? new streamsPb.DeleteReq.Options();
    const streamName = streamNameOf(options.getStreamIdentifier());
    const expected = toExpectedRevision(options, () =>
      options.hasRevision() ? options.getRevision() : undefined,
    );
    respond(streamName, context.store.softDelete(streamName, expected), callback, (position) =>
      new streamsPb.DeleteResp().setPosition(
        new streamsPb.DeleteResp.Position()
          .setCommitPosition(position)
          .setPreparePosition(position),
      ),
    );
  };
}

/** Builds the `Tombstone` handler. */
export function tombstoneHandler(
  context: ServerContext,
): handleUnaryCall<TombstoneReq, TombstoneResp> {
  return (call, callback) => {
    context.countCall('Tombstone');
    const options = call.request.getOptions() ?? new streamsPb.TombstoneReq.Options();
    const streamName = streamNameOf(options.getStreamIdentifier());
    const expected = toExpectedRevision(options, () =>
      options.hasRevision() ? options.getRevision() : undefined,
    );
    respond(streamName, context.store.tombstone(streamName, expected), callback, (position) =>
      new streamsPb.TombstoneResp().setPosition(
        new streamsPb.TombstoneResp.Position()
          .setCommitPosition(position)
          .setPreparePosition(position),
      ),
    );
  };
}

function respond<Resp>(
  streamName: string,
  outcome: DeleteOutcome,
  callback: sendUnaryData<Resp>,
  success: (position: string) => Resp,
): void {
  switch (outcome.kind) {
    case 'stream-deleted':
      callback(streamDeletedError(streamName));
      return;
    case 'wrong-expected-version':
      callback(wrongExpectedVersionError(streamName, outcome));
      return;
    case 'ok':
      callback(null, success(outcome.position.toString()));
  }
}
