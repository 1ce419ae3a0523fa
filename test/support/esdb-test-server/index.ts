/**
 * In-process, wire-compatible fake of the EventStoreDB gRPC API for tests: the real
 * `@eventstore/db-client` talks real gRPC to it over 127.0.0.1. The contract it follows is
 * `shared/esdb-wire-spec.md`.
 */
export { startEsdbTestServer, type EsdbTestServer, type EsdbTestServerOptions } from './server.js';
export type { RpcName } from './server-context.js';
