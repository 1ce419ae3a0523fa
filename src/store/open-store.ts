/**
 * Opens the store a configuration names. The EventStoreDB adapter is loaded only when asked
 * for, so the embedded default never loads gRPC.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MemoryError } from '../core/index.js';
import { keyStorePathBeside, openKeyStoreBeside, type KeyStore } from '../keys/index.js';
import type { MemoryStore } from './event-log.port.js';
import { sealedStore } from './sealed/sealed-store.js';
import { openInMemoryStore } from './in-memory/in-memory.event-log.js';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite/sqlite.event-log.js';

/**
 * Where the per-item keys live, so that content is sealed at rest and can be erased: a key store
 * the caller opened, or the one beside a database path (`<path>.keys`, its master key from
 * `MEMLEDGER_MASTER_KEY` or the key file `<path>.master-key`; see src/keys/index.ts).
 */
export type KeysConfig =
  | { readonly kind: 'key-store'; readonly keyStore: KeyStore }
  | { readonly kind: 'beside'; readonly path: string; readonly env?: NodeJS.ProcessEnv };

/** Which store to open, and (`keys`) whether its content is sealed so it can be erased. */
export type StoreConfig = StoreKind & { readonly keys?: KeysConfig };

/** The store adapters. */
export type StoreKind =
  | { readonly kind: 'in-memory' }
  | ({ readonly kind: 'sqlite' } & SqliteStoreOptions)
  | {
      readonly kind: 'eventstoredb';
      readonly connectionString: string;
      /** The id index file (`EventStoreDbStoreExtra.idIndex`). @defaultValue ':memory:' */
      readonly idIndex?: string;
      /** Commit delay of the id index file (`EventStoreDbStoreExtra`). @defaultValue 5 */
      readonly idIndexCommitDelayMs?: number;
      /** The server's maximum append size (`EventStoreDbStoreExtra`). @defaultValue 1 MiB */
      readonly maxAppendBytes?: number;
      /** The deadline of each append. @defaultValue 10000 */
      readonly deadlineMs?: number;
    }
  | { readonly kind: 'existing'; readonly store: MemoryStore };

/** Opens the configured store, sealed with its key store when `keys` names one. */
export async function openStore(config: StoreConfig): Promise<MemoryStore> {
  const store = await openAdapter(config);
  if (config.keys === undefined) return store;
  try {
    return sealedStore(store, await openKeys(config.keys, store));
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The key store `keys` names. One beside a database is created on first start — unless the log
 * already holds sealed content, whose keys it could never hold: that is `KEY_STORE_MISSING`.
 */
async function openKeys(keys: KeysConfig, store: MemoryStore): Promise<KeyStore> {
  if (keys.kind === 'key-store') return keys.keyStore;
  const env = keys.env ?? process.env;
  const path = keyStorePathBeside(keys.path, env);
  if (!existsSync(path) && (await store.holdsSealedContent?.())) {
    throw new MemoryError(
      'KEY_STORE_MISSING',
      `The key store ${path} is missing, but ${store.description} holds encrypted content: restore the key store (and its master key) from a backup, or point MEMLEDGER_KEY_STORE at it.`,
      { details: { path } },
    );
  }
  return openKeyStoreBeside(keys.path, env, { create: true });
}

/**
 * Whether the environment turns sealing on: `MEMLEDGER_ENCRYPTION` `on` (the default) or `off`.
 */
export function encryptionFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.MEMLEDGER_ENCRYPTION?.trim().toLowerCase() || 'on';
  if (value === 'on' || value === 'off') return value === 'on';
  throw new MemoryError(
    'VALIDATION_FAILED',
    `Invalid MEMLEDGER_ENCRYPTION ${JSON.stringify(value)}: must be on or off.`,
    { issues: [{ path: 'MEMLEDGER_ENCRYPTION', message: 'must be on or off' }] },
  );
}

/**
 * The key store the environment implies for a store: beside the SQLite file, or for
 * EventStoreDB beside the local id index (`./data/eventstoredb.keys`); none when
 * `MEMLEDGER_ENCRYPTION=off` or the store is in memory.
 */
export function keysFromEnv(
  store: StoreKind,
  env: NodeJS.ProcessEnv = process.env,
): KeysConfig | undefined {
  if (!encryptionFromEnv(env)) return undefined;
  const keyEnv = Object.fromEntries(
    KEY_VARIABLES.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
  );
  if (store.kind === 'sqlite' && store.path !== ':memory:') {
    return { kind: 'beside', path: store.path, env: keyEnv };
  }
  if (store.kind === 'eventstoredb') {
    // Beside the id index, or in ./data (where the index goes by default) when it is in memory.
    const dir = store.idIndex && store.idIndex !== ':memory:' ? dirname(store.idIndex) : './data';
    return { kind: 'beside', path: join(dir, 'eventstoredb'), env: keyEnv };
  }
  return undefined;
}

/** The variables that place the key store and its master key (src/keys/index.ts). */
const KEY_VARIABLES = ['MEMLEDGER_KEY_STORE', 'MEMLEDGER_MASTER_KEY', 'MEMLEDGER_MASTER_KEY_FILE'];

async function openAdapter(config: StoreKind): Promise<MemoryStore> {
  switch (config.kind) {
    case 'in-memory':
      return openInMemoryStore();
    case 'sqlite':
      return openSqliteStore(config);
    case 'existing':
      return config.store;
    case 'eventstoredb': {
      const { openEventStoreDbStore } = await import('./eventstoredb/eventstoredb.event-log.js');
      const {
        connectionString,
        kind: _kind,
        ...extra
      } = config as StoreKind & {
        kind: 'eventstoredb';
        keys?: unknown;
      };
      delete extra.keys;
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
  const store: StoreKind = url
    ? eventStoreDbConfig(url, env)
    : { kind: 'sqlite', path: env.MEMLEDGER_DB?.trim() || './data/memledger.db' };
  const keys = keysFromEnv(store, env);
  return keys ? { ...store, keys } : store;
}

/**
 * EventStoreDB/KurrentDB at `connectionString`, with the environment's `MEMLEDGER_ESDB_INDEX`
 * (default `./data/eventstoredb-index.db`), `MEMLEDGER_ESDB_MAX_APPEND_BYTES` (the server's
 * `MaxAppendSize`, default 1 MiB) and `MEMLEDGER_ESDB_DEADLINE_MS` (default 10000).
 */
export function eventStoreDbConfig(
  connectionString: string,
  env: NodeJS.ProcessEnv = process.env,
): StoreKind & { readonly kind: 'eventstoredb' } {
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
