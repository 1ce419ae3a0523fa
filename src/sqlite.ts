/**
 * `memledger/sqlite`: the embedded SQLite store (better-sqlite3, WAL), and the SQLite key store
 * that seals content so it can be erased (pass it to `openMemledger({ store, keys })`).
 */
export { openSqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite.event-log.js';
export {
  loadMasterKey,
  masterKeyFromBytes,
  openKeyStoreBeside,
  openSqliteKeyStore,
  type KeyStore,
  type KeyStoreBesideOptions,
  type LoadMasterKeyOptions,
  type MasterKey,
  type SqliteKeyStoreOptions,
} from './keys/index.js';
