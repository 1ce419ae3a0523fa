/**
 * `ServerFeatures.GetSupportedMethods` (spec §1.3). The client asks for it lazily, before its
 * first append, and picks BatchAppend only if `streams/batchappend` is listed. Names are
 * lower-case, as the real server sends them (the Rust client matches them exactly).
 */
import type { handleUnaryCall } from '@grpc/grpc-js';
import { serverFeaturesPb, type sharedPb } from './proto.js';
import type { ServerContext } from './server-context.js';

type Empty = InstanceType<typeof sharedPb.Empty>;
type SupportedMethods = InstanceType<typeof serverFeaturesPb.SupportedMethods>;

/** Server version advertised; must be `digits.digits.digits` for the Rust-based clients. */
export const EMULATED_SERVER_VERSION = '24.10.0';

const STREAMS_SERVICE = 'event_store.client.streams.streams';

/** Builds the handler; without `batchAppend` the client falls back to the `Append` RPC. */
export function supportedMethodsHandler(
  context: ServerContext,
  advertiseBatchAppend: boolean,
): handleUnaryCall<Empty, SupportedMethods> {
  return (_call, callback) => {
    context.countCall('GetSupportedMethods');
    const method = (name: string, features: string[] = []) =>
      new serverFeaturesPb.SupportedMethod()
        .setServiceName(STREAMS_SERVICE)
        .setMethodName(name)
        .setFeaturesList(features);
    const methods = [
      method('read', ['position', 'events']),
      method('append'),
      method('delete'),
      method('tombstone'),
    ];
    if (advertiseBatchAppend) methods.push(method('batchappend', ['deadline_duration']));
    callback(
      null,
      new serverFeaturesPb.SupportedMethods()
        .setEventStoreServerVersion(EMULATED_SERVER_VERSION)
        .setMethodsList(methods),
    );
  };
}
