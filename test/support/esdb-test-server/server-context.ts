/**
 * What every RPC handler shares: the store (which survives restarts), limits, and the registry
 * of open calls that `stop()` must fail before shutting the transport down.
 */
import type { EventStore } from './store.js';

/** Names of the RPCs the fake implements, as counted by {@link ServerContext.countCall}. */
export type RpcName =
  'Append' | 'BatchAppend' | 'Read' | 'Delete' | 'Tombstone' | 'GetSupportedMethods';

/** Shared state handed to each handler factory. */
export interface ServerContext {
  readonly store: EventStore;
  /** Max total size of one append (spec §6); the 24.10 default is 1 MiB. */
  readonly maxAppendSize: number;
  /**
   * Registers an open long-lived call. `abort` must end it with a status; the returned function
   * deregisters it once the call is over.
   */
  track(abort: () => void): () => void;
  /** Counts an incoming RPC, so tests can tell which path the client took. */
  countCall(rpc: RpcName): void;
}
