/**
 * Opening a file: create the layout in a new file, migrate a file written by memledger 0.1.0
 * (layout version 1) or 0.1.x (layout version 2, before erasure), refuse any version this code
 * does not know. A migration is one `BEGIN IMMEDIATE` transaction: a crash anywhere in it leaves
 * the file as it was, and the next open migrates again. Each migration leaves a record in
 * `memledger_meta`. Tables the log does not own (read models) are left alone.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../../core/index.js';
import { UNVERSIONED } from '../../core/index.js';
import {
  CREATE_EVENTS_VIEW,
  CREATE_LOG_TABLES,
  CREATE_SCHEMA,
  SQLITE_SCHEMA_VERSION,
  idKeySql,
  payloadSql,
  registerTypeSql,
} from './sqlite.schema.js';

/** The `memledger_meta` key of the record a migration from version 1 leaves. */
export const MIGRATION_FROM_1_KEY = 'migration 1->2';
/** The `memledger_meta` key of the record a migration from version 2 leaves. */
export const MIGRATION_FROM_2_KEY = 'migration 2->3';

/** What a migration records in `memledger_meta` (as JSON) under its key. */
export interface MigrationRecord {
  readonly from: string;
  readonly to: string;
  /** When it ran, UTC ISO-8601. */
  readonly at: string;
  readonly events: number;
  readonly deletions: number;
  /** Rows of the 0.1.0 guard index naming an event the log does not hold (inert; not carried over). */
  readonly deletionsDropped: number;
}

/**
 * Brings the file behind `db` to the current layout: creates it, migrates version 1, or
 * throws `STORE_FAILED` for a version it does not know (a newer memledger's file).
 */
export function prepareLayout(db: Database.Database, path: string): void {
  // A file already at this layout is left untouched: opening takes no write lock.
  if (schemaVersionOf(db) === SQLITE_SCHEMA_VERSION) return;
  db.transaction(() => {
    // Read under the write lock: another process may have created or migrated the file meanwhile.
    const version = schemaVersionOf(db);
    if (version === '1') migrateFromVersion1(db);
    else if (version === '2') migrateFromVersion2(db);
    else if (version === undefined || version === SQLITE_SCHEMA_VERSION) db.exec(CREATE_SCHEMA);
    else {
      throw new MemoryError(
        'STORE_FAILED',
        `SQLite file ${path} has schema version ${version}; this memledger reads version ${SQLITE_SCHEMA_VERSION} (and migrates versions 1 and 2).`,
        { details: { path, version, reads: SQLITE_SCHEMA_VERSION } },
      );
    }
  }).immediate();
}

/** The file's layout version, `undefined` for a file memledger has not written yet. */
function schemaVersionOf(db: Database.Database): string | undefined {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'memledger_meta'")
    .get();
  if (!hasMeta) return undefined;
  return db
    .prepare<[], string>("SELECT value FROM memledger_meta WHERE key = 'schema_version'")
    .pluck()
    .get();
}

/**
 * 0.1.0 kept one WITHOUT ROWID table `events (memory_id, seq, id, type, payload)` and a guard
 * index `deletions (memory_id, target_id, deletion_id, deletion_seq)`. Every row is copied in
 * log order with schema version 1; a type memledger does not write is kept under a foreign code.
 */
function migrateFromVersion1(db: Database.Database): void {
  const count = (sql: string) => db.prepare<[], number>(sql).pluck().get()!;
  db.exec(CREATE_LOG_TABLES);
  db.exec('INSERT INTO memories (memory_id) SELECT DISTINCT memory_id FROM events ORDER BY 1');
  const registerType = db.prepare(registerTypeSql('@type'));
  for (const type of db.prepare<[], string>('SELECT DISTINCT type FROM events').pluck().all())
    registerType.run({ type });
  db.exec(`
    INSERT INTO event_log (memory, seq, id, type, version, payload)
      SELECT m.key, e.seq, ${idKeySql('e.id')}, t.code, ${UNVERSIONED},
             ${payloadSql('e.payload', 'e.id', 'e.type')}
        FROM events e
        JOIN memories m ON m.memory_id = e.memory_id
        JOIN event_types t ON t.type = e.type
       ORDER BY e.memory_id, e.seq;
    INSERT INTO event_deletions (target_pos, deletion_pos)
      SELECT target.pos, deletion.pos
        FROM deletions x
        JOIN memories m ON m.memory_id = x.memory_id
        JOIN event_log target ON target.memory = m.key AND target.id = ${idKeySql('x.target_id')}
        JOIN event_log deletion ON deletion.memory = m.key AND deletion.seq = x.deletion_seq;`);
  const events = count('SELECT COUNT(*) FROM events');
  const copied = count('SELECT COUNT(*) FROM event_log');
  if (copied !== events) {
    throw new MemoryError(
      'STORE_FAILED',
      `Migration from schema version 1 copied ${copied} of ${events} events; the file is left as it was.`,
    );
  }
  const deletions = count('SELECT COUNT(*) FROM event_deletions');
  const record: MigrationRecord = {
    from: '1',
    to: SQLITE_SCHEMA_VERSION,
    at: new Date().toISOString(),
    events,
    deletions,
    deletionsDropped: count('SELECT COUNT(*) FROM deletions') - deletions,
  };
  // DROP TABLE fires no trigger: the old tables' append-only triggers go with them.
  db.exec('DROP TABLE deletions; DROP TABLE events;');
  db.exec(CREATE_EVENTS_VIEW);
  db.prepare("UPDATE memledger_meta SET value = ? WHERE key = 'schema_version'").run(
    SQLITE_SCHEMA_VERSION,
  );
  db.prepare('INSERT INTO memledger_meta (key, value) VALUES (?, ?)').run(
    MIGRATION_FROM_1_KEY,
    JSON.stringify(record),
  );
}

/** Layout 2 had no `event_erasures`: no erasure could be written then, so it starts empty. */
function migrateFromVersion2(db: Database.Database): void {
  db.exec(CREATE_LOG_TABLES);
  db.prepare("UPDATE memledger_meta SET value = ? WHERE key = 'schema_version'").run(
    SQLITE_SCHEMA_VERSION,
  );
  db.prepare('INSERT INTO memledger_meta (key, value) VALUES (?, ?)').run(
    MIGRATION_FROM_2_KEY,
    JSON.stringify({ from: '2', to: SQLITE_SCHEMA_VERSION, at: new Date().toISOString() }),
  );
}
