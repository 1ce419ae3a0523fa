/**
 * Where a fault's server child keeps its events: a SQLite file, or EventStoreDB — the in-process
 * test server of test/support (the real gRPC protocol, in this process, so it outlives every
 * server child this suite kills) with the application's local id index and read-model files in
 * the fault's folder. Each gives the server child's configuration, opens the same data here for
 * the checks, and names the target of the real `memledger verify`.
 */
import { join } from 'node:path';
import type { HttpConfig } from '../src/http/index.js';
import { openMemledger, type Memledger } from '../src/memory/index.js';
import type { MemoryStore } from '../src/store/event-log.port.js';
import { openEventStoreDbStore } from '../src/store/eventstoredb/eventstoredb.event-log.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { startEsdbTestServer } from '../test/support/esdb-test-server/index.js';

/** The stores a fault can run on. */
export type FaultStoreKind = 'sqlite' | 'eventstoredb';

/** How the server child opens the store. */
export interface ServerOptions {
  /** SQLite only. @defaultValue 'FULL' */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * Content sealed with a key store beside the data, as the application runs by default
   * (`MEMLEDGER_ENCRYPTION=on`). @defaultValue false
   */
  readonly sealed?: boolean;
  /** SQLite only: how often subscriptions look for other processes' appends. @defaultValue 100 */
  readonly pollMs?: number;
  /**
   * Names one of several servers on the same data: on EventStoreDB each gets its own id index
   * and read-model files, as each application instance keeps its own (SQLite: one shared file).
   */
  readonly instance?: string;
}

/** One fault's store (see the module comment). */
export interface FaultStore {
  readonly kind: FaultStoreKind;
  /** The server child's store and memory options (see {@link ServerOptions}). */
  serverConfig(options?: ServerOptions): Pick<HttpConfig, 'store' | 'memory'>;
  /** The same events opened in this process (the caller closes it). */
  open(): MemoryStore;
  /** A memledger over them with the server's read models (the caller closes it). */
  openMemledger(): Memledger;
  /** Global options of the `memledger` command line and its environment, for `verify`. */
  readonly cli: { readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv };
  /** Stops what the store started (the EventStoreDB test server). */
  close(): Promise<void>;
}

/** A SQLite file at `path`. */
export function sqliteFaultStore(path: string): FaultStore {
  return {
    kind: 'sqlite',
    serverConfig: ({ synchronous, sealed, pollMs } = {}) => ({
      store: {
        kind: 'sqlite',
        path,
        ...(synchronous ? { synchronous } : {}),
        ...(pollMs ? { pollMs } : {}),
        ...(sealed ? { keys: { kind: 'beside', path } } : {}),
      },
    }),
    open: () => openSqliteStore({ path }),
    openMemledger: () => openMemledger({ store: openSqliteStore({ path }) }),
    cli: { args: ['--db', path], env: {} },
    close: async () => undefined,
  };
}

/** A fresh in-process EventStoreDB test server, with the local files in `dir`. */
export async function esdbFaultStore(dir: string): Promise<FaultStore> {
  const server = await startEsdbTestServer();
  const { connectionString } = server;
  const idIndex = join(dir, 'eventstoredb-index.db');
  const readModels = join(dir, 'read-models.db');
  return {
    kind: 'eventstoredb',
    serverConfig: ({ sealed, instance } = {}) => {
      const own = (file: string) => (instance ? file.replace(/\.db$/, `-${instance}.db`) : file);
      return {
        store: {
          kind: 'eventstoredb',
          connectionString,
          idIndex: own(idIndex),
          // Where the application keeps the key store by default: beside the id index.
          ...(sealed ? { keys: { kind: 'beside', path: join(dir, 'eventstoredb') } } : {}),
        },
        memory: { readModels: own(readModels) },
      };
    },
    // The checks keep their own id index: the server child's may be mid-write when it is killed.
    open: () => openEventStoreDbStore({ connectionString }),
    openMemledger: () =>
      openMemledger({ store: openEventStoreDbStore({ connectionString }), readModels }),
    cli: {
      args: ['--eventstore', connectionString, '--read-models', join(dir, 'verify-read-models.db')],
      env: { MEMLEDGER_ESDB_INDEX: join(dir, 'verify-index.db'), MEMLEDGER_ENCRYPTION: 'off' },
    },
    close: () => server.close(),
  };
}

/** The store of `kind` for a fault whose files live in `dir`. */
export async function faultStore(kind: FaultStoreKind, dir: string): Promise<FaultStore> {
  return kind === 'sqlite' ? sqliteFaultStore(join(dir, 'memledger.db')) : esdbFaultStore(dir);
}
