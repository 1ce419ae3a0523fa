/**
 * Bootstrap of the fake: registers the services on a grpc-js server bound to 127.0.0.1, and
 * implements stop / restart on the same port / close around one long-lived {@link EventStore}.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { appendHandler } from './append.js';
import { batchAppendHandler } from './batch-append.js';
import { deleteHandler, tombstoneHandler } from './delete.js';
import { serverFeaturesGrpc, streamsGrpc } from './proto.js';
import { readHandler } from './read.js';
import type { RpcName, ServerContext } from './server-context.js';
import { supportedMethodsHandler } from './server-features.js';
import { EventStore } from './store.js';

/** Options of {@link startEsdbTestServer}. */
export interface EsdbTestServerOptions {
  /** Port to listen on; by default a random free one. */
  readonly port?: number;
  /** Max total size of one append in bytes; default 1 MiB, as EventStoreDB 24.10. */
  readonly maxAppendSize?: number;
  /**
   * Whether `GetSupportedMethods` lists `streams/batchappend` (default true). When false the
   * client appends with the legacy `Append` client stream instead of `BatchAppend`.
   */
  readonly advertiseBatchAppend?: boolean;
  /**
   * Whether to serve `ServerFeatures` at all (default true). When false the client gets
   * UNIMPLEMENTED, assumes an unknown server, and uses `Append`.
   */
  readonly serverFeatures?: boolean;
}

/** A running fake EventStoreDB node. */
export interface EsdbTestServer {
  readonly port: number;
  /** Connection string for `EventStoreDBClient.connectionString`, e.g. `esdb://127.0.0.1:PORT?tls=false`. */
  readonly connectionString: string;
  /**
   * Shuts down as the real server does: open appends, batch-append calls and subscriptions end
   * with CANCELLED, then the transport closes (new calls see UNAVAILABLE); data is kept.
   */
  stop(): Promise<void>;
  /** Stops if running, then listens again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops for good; `restart()` is refused afterwards. */
  close(): Promise<void>;
  /** How many calls of an RPC the server has received, e.g. to tell Append from BatchAppend. */
  rpcCount(rpc: RpcName): number;
}

// The client may receive 17 MiB; the real server accepts about 16 MiB on Streams (spec §1.1).
const MAX_MESSAGE_BYTES = 17 * 1024 * 1024;
const DEFAULT_MAX_APPEND_SIZE = 1024 * 1024;

/** Starts a fake EventStoreDB node on 127.0.0.1. */
export async function startEsdbTestServer(
  options: EsdbTestServerOptions = {},
): Promise<EsdbTestServer> {
  const openCalls = new Set<() => void>();
  const counts = new Map<RpcName, number>();
  const context: ServerContext = {
    store: new EventStore(),
    maxAppendSize: options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE,
    track(abort) {
      openCalls.add(abort);
      return () => void openCalls.delete(abort);
    },
    countCall(rpc) {
      counts.set(rpc, (counts.get(rpc) ?? 0) + 1);
    },
  };
  const first = await listen(context, options, options.port ?? 0);
  let server: Server | undefined = first.server;
  const { port } = first;
  let closed = false;

  const stop = async (): Promise<void> => {
    const current = server;
    if (current === undefined) return;
    server = undefined;
    // End the open calls ourselves with CANCELLED, as the real server's shutdown does, and let
    // the status frames flush: forceShutdown alone resets the streams with an HTTP/2 RST_STREAM.
    for (const abort of [...openCalls]) abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    current.forceShutdown();
  };

  return {
    port,
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    stop,
    async restart() {
      if (closed) throw new Error('The EventStoreDB test server is closed.');
      await stop();
      server = (await listen(context, options, port)).server;
    },
    async close() {
      closed = true;
      await stop();
    },
    rpcCount: (rpc) => counts.get(rpc) ?? 0,
  };
}

function createServer(context: ServerContext, options: EsdbTestServerOptions): Server {
  const server = new Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  server.addService(streamsGrpc.StreamsService, {
    read: readHandler(context),
    append: appendHandler(context),
    delete: deleteHandler(context),
    tombstone: tombstoneHandler(context),
    batchAppend: batchAppendHandler(context),
  });
  if (options.serverFeatures ?? true) {
    server.addService(serverFeaturesGrpc.ServerFeaturesService, {
      getSupportedMethods: supportedMethodsHandler(context, options.advertiseBatchAppend ?? true),
    });
  }
  return server;
}

/**
 * Creates a server and binds it, retrying briefly with a fresh server: a port just released by
 * `forceShutdown` may not be free yet.
 */
async function listen(
  context: ServerContext,
  options: EsdbTestServerOptions,
  port: number,
): Promise<{ server: Server; port: number }> {
  for (let attempt = 0; ; attempt += 1) {
    const server = createServer(context, options);
    try {
      const bound = await new Promise<number>((resolve, reject) => {
        server.bindAsync(
          `127.0.0.1:${port}`,
          ServerCredentials.createInsecure(),
          (error, result) => (error === null ? resolve(result) : reject(error)),
        );
      });
      return { server, port: bound };
    } catch (error) {
      server.forceShutdown();
      if (port === 0 || attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
