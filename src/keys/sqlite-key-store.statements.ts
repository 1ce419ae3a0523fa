/** The SQLite key store's prepared statements, typed. */
import type Database from 'better-sqlite3';

/** A row of `pending_erasures`. */
export interface PendingRow {
  readonly memory: string;
  readonly erasure_id: string;
  readonly targets: string;
  readonly since: string;
}

/** A row of `erasure_cleanups`. */
export interface CleanupRow {
  readonly memory: string;
  readonly erasure_id: string;
  readonly since: string;
}

/** The statements of one connection (pluck: each returns its one column). */
export interface Statements {
  readonly dataVersion: Database.Statement<[], number>;
  readonly wrappedKey: Database.Statement<[string, string], Buffer>;
  readonly insertKey: Database.Statement<[string, string, Buffer]>;
  readonly deleteKey: Database.Statement<[string, string]>;
  readonly erasedBy: Database.Statement<[string, string], string>;
  readonly anyErasedBy: Database.Statement<[string, string], number>;
  readonly insertErased: Database.Statement<[string, string, string, string]>;
  readonly pendingTargets: Database.Statement<[string, string], string>;
  readonly insertPending: Database.Statement<[string, string, string, string]>;
  readonly deletePending: Database.Statement<[string, string]>;
  readonly allPending: Database.Statement<[], PendingRow>;
  readonly insertCleanup: Database.Statement<[string, string, string]>;
  readonly deleteCleanup: Database.Statement<[string, string]>;
  readonly allCleanups: Database.Statement<[], CleanupRow>;
}

/** Prepares every statement of the key store once per connection. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    wrappedKey: db
      .prepare<[string, string], Buffer>(
        'SELECT wrapped FROM item_keys WHERE memory = ? AND item_id = ?',
      )
      .pluck(),
    insertKey: db.prepare<[string, string, Buffer]>(
      'INSERT INTO item_keys (memory, item_id, wrapped) VALUES (?, ?, ?)',
    ),
    deleteKey: db.prepare<[string, string]>(
      'DELETE FROM item_keys WHERE memory = ? AND item_id = ?',
    ),
    erasedBy: db
      .prepare<[string, string], string>(
        'SELECT erasure_id FROM erased_items WHERE memory = ? AND item_id = ?',
      )
      .pluck(),
    anyErasedBy: db
      .prepare<[string, string], number>(
        'SELECT 1 FROM erased_items WHERE memory = ? AND erasure_id = ? LIMIT 1',
      )
      .pluck(),
    // OR IGNORE: a second intent naming an item keeps the first erasure's tombstone.
    insertErased: db.prepare<[string, string, string, string]>(
      'INSERT OR IGNORE INTO erased_items (memory, item_id, erasure_id, erased_at) VALUES (?, ?, ?, ?)',
    ),
    pendingTargets: db
      .prepare<[string, string], string>(
        'SELECT targets FROM pending_erasures WHERE memory = ? AND erasure_id = ?',
      )
      .pluck(),
    insertPending: db.prepare<[string, string, string, string]>(
      'INSERT INTO pending_erasures (memory, erasure_id, targets, since) VALUES (?, ?, ?, ?)',
    ),
    deletePending: db.prepare<[string, string]>(
      'DELETE FROM pending_erasures WHERE memory = ? AND erasure_id = ?',
    ),
    allPending: db.prepare<[], PendingRow>(
      'SELECT memory, erasure_id, targets, since FROM pending_erasures ORDER BY since, memory, erasure_id',
    ),
    insertCleanup: db.prepare<[string, string, string]>(
      'INSERT OR IGNORE INTO erasure_cleanups (memory, erasure_id, since) VALUES (?, ?, ?)',
    ),
    deleteCleanup: db.prepare<[string, string]>(
      'DELETE FROM erasure_cleanups WHERE memory = ? AND erasure_id = ?',
    ),
    allCleanups: db.prepare<[], CleanupRow>(
      'SELECT memory, erasure_id, since FROM erasure_cleanups ORDER BY since, memory, erasure_id',
    ),
  };
}
