/**
 * The generated protobuf message classes and gRPC service definitions of the client package.
 *
 * We deliberately reuse the files that `@eventstore/db-client` itself loads instead of our own
 * `.proto` copies: google-protobuf registers every class on a global `proto` object, and two
 * different copies of `event_store.client.*` in one process corrupt each other (spec §1.1).
 * These are CommonJS modules; from ESM their `module.exports` is the default import.
 */
import serverFeaturesGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import serverFeaturesPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';

export { serverFeaturesGrpc, serverFeaturesPb, sharedPb, statusPb, streamsGrpc, streamsPb };

/** `google.protobuf.Any`, used for the `details` of in-band BatchAppend errors. */
export const { Any } = anyPb;

/** `google.protobuf.Empty`; BatchAppend uses it where the other RPCs use `event_store.client.Empty`. */
export const { Empty: GoogleEmpty } = emptyPb;
