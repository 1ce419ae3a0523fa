/**
 * The grant store that goes with an event store: the SQLite file's own tables, the EventStoreDB
 * node's `memledger-access` stream, or (for a store held only in memory) a private in-memory one.
 */
import type { GrantStore } from './grant-store.port.js';
import { openSqliteGrantStore } from './sqlite.grant-store.js';

/** Where the grant store lives. */
export type GrantStoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string; readonly pollMs?: number }
  | { readonly kind: 'eventstoredb'; readonly connectionString: string }
  | { readonly kind: 'in-memory' };

/** Opens the grant store `config` names and waits until it has read every record. */
export async function openGrantStore(config: GrantStoreConfig): Promise<GrantStore> {
  const store = await openAdapter(config);
  try {
    await store.ready();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function openAdapter(config: GrantStoreConfig): Promise<GrantStore> {
  switch (config.kind) {
    case 'sqlite':
      return openSqliteGrantStore(config);
    case 'in-memory':
      return openSqliteGrantStore({ path: ':memory:' });
    case 'eventstoredb': {
      // Loaded only when asked for, so the embedded default never loads gRPC.
      const { openEventStoreDbGrantStore } = await import('./eventstoredb.grant-store.js');
      return openEventStoreDbGrantStore(config);
    }
  }
}
