/**
 * The SQLite key store's layout and its open-time check: a wrong master key is refused before
 * anything is written, and a new file gets its tables and check blob in one transaction.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../core/index.js';
import type { MasterKey } from './master-key.js';

/** The layout this code writes and reads. */
export const KEY_STORE_LAYOUT = 1;

const CHECK_PLAINTEXT = Buffer.from('memledger key store check v1', 'utf8');
const CHECK_AAD = 'memledger/key-store-check';

/**
 * Erasures whose keys are destroyed but whose files may still hold old page images (added in
 * 0.3.0 within layout 1: an older memledger ignores the table, a key store it wrote gains it on
 * its first open here).
 */
const CLEANUPS_TABLE = `
  CREATE TABLE IF NOT EXISTS erasure_cleanups (
    memory TEXT NOT NULL,
    erasure_id TEXT NOT NULL,
    since TEXT NOT NULL,
    PRIMARY KEY (memory, erasure_id)
  ) WITHOUT ROWID;`;

// WITHOUT ROWID: every table is looked up by its primary key only, and one b-tree per table
// means one copy of each key's bytes to destroy.
const TABLES = `
  CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS item_keys (
    memory TEXT NOT NULL,
    item_id TEXT NOT NULL,
    wrapped BLOB NOT NULL,
    PRIMARY KEY (memory, item_id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS erased_items (
    memory TEXT NOT NULL,
    item_id TEXT NOT NULL,
    erasure_id TEXT NOT NULL,
    erased_at TEXT NOT NULL,
    PRIMARY KEY (memory, item_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS erased_items_by_erasure ON erased_items (memory, erasure_id);
  CREATE TABLE IF NOT EXISTS pending_erasures (
    memory TEXT NOT NULL,
    erasure_id TEXT NOT NULL,
    targets TEXT NOT NULL,
    since TEXT NOT NULL,
    PRIMARY KEY (memory, erasure_id)
  ) WITHOUT ROWID;
  ${CLEANUPS_TABLE}
`;

/**
 * Checks (or, for a new file when `create` is set, writes) the layout version and the master
 * key's check blob. Reads before it writes, so a store that another master key wrapped is
 * refused with `KEY_STORE_LOCKED` and left byte for byte as it was.
 */
export function prepareKeyStoreLayout(
  db: Database.Database,
  path: string,
  masterKey: MasterKey,
  create: boolean,
): void {
  if (!hasMeta(db)) {
    if (!create)
      throw new MemoryError(
        'KEY_STORE_MISSING',
        `The file ${path} holds no memledger key store; restore the key store from a backup.`,
        { details: { path } },
      );
    // Keys written into another database (say, the event log's) would share its fate and copies.
    if (tableCount(db) > 0)
      throw new MemoryError(
        'KEY_STORE_LOCKED',
        `The file ${path} is a SQLite database of something else, not a memledger key store; ` +
          'give the key store a file of its own.',
        { details: { path } },
      );
    db.pragma('journal_mode = WAL');
    db.transaction(() => {
      db.exec(TABLES);
      const insert = db.prepare('INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)');
      insert.run('layout', KEY_STORE_LAYOUT);
      insert.run('check', masterKey.wrap(CHECK_PLAINTEXT, CHECK_AAD));
    }).immediate();
  }
  // Another process may have created the file first with its own master key: check in all cases.
  checkLayout(db, path, masterKey);
  db.pragma('journal_mode = WAL');
  if (!db.readonly && !hasTable(db, 'erasure_cleanups')) db.exec(CLEANUPS_TABLE);
}

function hasMeta(db: Database.Database): boolean {
  return hasTable(db, 'meta');
}

function hasTable(db: Database.Database, name: string): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
      .pluck()
      .get(name) !== undefined
  );
}

function tableCount(db: Database.Database): number {
  return db
    .prepare<[], number>("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
    .pluck()
    .get()!;
}

function checkLayout(db: Database.Database, path: string, masterKey: MasterKey): void {
  const read = db.prepare<[string], unknown>('SELECT value FROM meta WHERE name = ?').pluck();
  const layout = read.get('layout');
  if (layout !== KEY_STORE_LAYOUT)
    throw new MemoryError(
      'KEY_STORE_LOCKED',
      `The key store at ${path} has layout ${String(layout)}; this memledger reads layout ${KEY_STORE_LAYOUT}.`,
      { details: { path, layout, expected: KEY_STORE_LAYOUT } },
    );
  const check = read.get('check');
  let opened: Buffer | undefined;
  try {
    if (Buffer.isBuffer(check)) opened = masterKey.unwrap(check, CHECK_AAD);
  } catch {
    opened = undefined;
  }
  if (!opened?.equals(CHECK_PLAINTEXT))
    throw new MemoryError(
      'KEY_STORE_LOCKED',
      `The master key ${masterKey.fingerprint} does not open the key store at ${path}; ` +
        'start with the master key it was created with (nothing was written).',
      { details: { path, fingerprint: masterKey.fingerprint } },
    );
}
