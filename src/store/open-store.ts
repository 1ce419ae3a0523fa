/**
 * Opens the store a configuration names. The EventStoreDB adapter is loaded only when asked
 * for, so the embedded default never loads gRPC.
 */
import type { MemoryStore } from './event-log.port.js';
import { openInMemoryStore } from './in-memory/in-memory.event-log.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite.event-log.js';

/** Which store to open. */
export type StoreConfig =
  | { readonly kind: 'in-memory' }
  | ({ readonly kind: 'sqlite' } & SqliteStoreOptions)
  | {
      readonly kind: 'eventstoredb';
      readonly connectionString: string;
      /** The id index file (`EventStoreDbStoreExtra.idIndex`). @defaultValue ':memory:' */
      readonly idIndex?: string;
    }
  | { readonly kind: 'existing'; readonly store: MemoryStore };

/** Opens the configured store. */
export async function openStore(config: StoreConfig): Promise<MemoryStore> {
  switch (config.kind) {
    case 'in-memory':
      return openInMemoryStore();
    case 'sqlite':
      return openSqliteStore(config);
    case 'existing':
      return config.store;
    case 'eventstoredb': {
      const { openEventStoreDbStore } = await import('./eventstoredb/eventstoredb.event-log.js');
      return openEventStoreDbStore(
        { connectionString: config.connectionString },
        config.idIndex === undefined ? {} : { idIndex: config.idIndex },
      );
    }
  }
}

/**
 * The store an environment names: `EVENTSTORE_URL` selects EventStoreDB/KurrentDB, with its id
 * index in the file `MEMLEDGER_ESDB_INDEX` (default `./data/eventstoredb-index.db`), otherwise
 * SQLite at `MEMLEDGER_DB` (default `./data/memledger.db`).
 */
export function storeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  const url = env.EVENTSTORE_URL?.trim();
  if (url) {
    const idIndex = env.MEMLEDGER_ESDB_INDEX?.trim() || './data/eventstoredb-index.db';
    return { kind: 'eventstoredb', connectionString: url, idIndex };
  }
  return { kind: 'sqlite', path: env.MEMLEDGER_DB?.trim() || './data/memledger.db' };
}
