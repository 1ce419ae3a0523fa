/** `memledger/sqlite`: the embedded SQLite store (better-sqlite3, WAL). */
export { openSqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite.event-log.js';
