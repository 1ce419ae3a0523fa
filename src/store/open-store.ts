/**
 * Opens the store a configuration names. The EventStoreDB adapter is loaded only when asked
 * for, so the embedded default never loads gRPC.
 */
import { MemoryError } from '../core/index.js';
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
      /** The server's maximum append size (`EventStoreDbStoreExtra`). @defaultValue 1 MiB */
      readonly maxAppendBytes?: number;
      /** The deadline of each append. @defaultValue 10000 */
      readonly deadlineMs?: number;
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
      const { connectionString, kind: _kind, ...extra } = config;
      return openEventStoreDbStore({ connectionString }, extra);
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
  if (url) return eventStoreDbConfig(url, env);
  return { kind: 'sqlite', path: env.MEMLEDGER_DB?.trim() || './data/memledger.db' };
}

/**
 * EventStoreDB/KurrentDB at `connectionString`, with the environment's `MEMLEDGER_ESDB_INDEX`
 * (default `./data/eventstoredb-index.db`), `MEMLEDGER_ESDB_MAX_APPEND_BYTES` (the server's
 * `MaxAppendSize`, default 1 MiB) and `MEMLEDGER_ESDB_DEADLINE_MS` (default 10000).
 */
export function eventStoreDbConfig(
  connectionString: string,
  env: NodeJS.ProcessEnv = process.env,
): StoreConfig {
  const maxAppendBytes = positiveInteger(env, 'MEMLEDGER_ESDB_MAX_APPEND_BYTES');
  const deadlineMs = positiveInteger(env, 'MEMLEDGER_ESDB_DEADLINE_MS');
  return {
    kind: 'eventstoredb',
    connectionString,
    idIndex: env.MEMLEDGER_ESDB_INDEX?.trim() || './data/eventstoredb-index.db',
    ...(maxAppendBytes === undefined ? {} : { maxAppendBytes }),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(text)) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid ${name} ${JSON.stringify(text)}: must be a positive integer.`,
      { issues: [{ path: name, message: 'must be a positive integer' }] },
    );
  }
  return Number(text);
}
