/**
 * The file layout of the EventStoreDB id index (eventstoredb.id-index.ts), version 2 (version 1
 * had no erasure columns).
 *
 * - `esdb_index_streams`: one row per memory stream (keyed by stream name, so stores with other
 *   stream prefixes can share a file), its integer key, and the checkpoint: the last seq applied
 *   and the id of the event there, written in the same transaction as the rows it covers.
 * - `esdb_index_ids`: per memory and id, the kind as a small code, the seq, and for deleted
 *   content the id and seq of the first Deletion, and of the Erasure for erased content. Ids are 16 bytes (text only for an id that is
 *   not a canonical UUID), keyed (memory, id) without a rowid.
 *
 * It is derived data: every row can be rebuilt by reading the streams, so a file of another
 * layout version is dropped and rebuilt, never migrated, and commits use `synchronous=NORMAL`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MemoryError, type EventKind } from '../../core/index.js';

/** The layout version this code writes; a file holding any other is dropped and rebuilt. */
export const ID_INDEX_LAYOUT_VERSION = '2';

/** Kinds as `esdb_index_ids.kind` stores them. Part of the layout: never renumber one. */
export const KIND_CODES = {
  message: 0,
  document: 1,
  recall: 2,
  deletion: 3,
  erasure: 4,
} as const satisfies Record<EventKind, number>;

const KINDS = new Map<number, EventKind>(
  Object.entries(KIND_CODES).map(([kind, code]) => [code, kind as EventKind]),
);

/** The kind of a stored code. */
export function kindOfCode(code: number, where: string): EventKind {
  const kind = KINDS.get(code);
  if (kind === undefined) {
    throw new MemoryError(
      'STORE_FAILED',
      `The id index ${where} holds kind code ${code}, which is not one of ${[...KINDS.keys()].join(', ')}.`,
      { details: { where, code } },
    );
  }
  return kind;
}

const TABLES = `
CREATE TABLE IF NOT EXISTS esdb_index_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS esdb_index_streams (
  mem      INTEGER PRIMARY KEY,
  stream   TEXT    NOT NULL UNIQUE,
  last_seq INTEGER,
  last_id  ANY
) STRICT;

CREATE TABLE IF NOT EXISTS esdb_index_ids (
  mem         INTEGER NOT NULL,
  id          ANY     NOT NULL,
  kind        INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  deleted_by  ANY,
  deleted_seq INTEGER,
  erased_by   ANY,
  erased_seq  INTEGER,
  PRIMARY KEY (mem, id)
) STRICT, WITHOUT ROWID;
`;

/** Every table of the layout, any version: what a version change drops. */
const OWNED = ['esdb_index_ids', 'esdb_index_streams', 'esdb_index_meta'];

/**
 * Opens (creating when needed) an id index file: WAL, `synchronous=NORMAL`, a busy timeout for
 * the write lock other processes sharing the file may hold, and the layout of this version.
 */
export function openIdIndexDatabase(path: string, busyTimeoutMs = 5000): Database.Database {
  let db: Database.Database | undefined;
  try {
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
    db.pragma('journal_mode = WAL');
    // Derived data: a commit lost with the machine is read again from the stream.
    db.pragma('synchronous = NORMAL');
    ensureLayout(db);
    return db;
  } catch (cause) {
    db?.close();
    throw new MemoryError(
      'STORE_FAILED',
      `EventStoreDB id index file ${path} cannot be opened: ${(cause as Error).message}`,
      { details: { path }, cause },
    );
  }
}

/** Creates the layout, first dropping a layout of another version (it is rebuilt from the streams). */
function ensureLayout(db: Database.Database): void {
  db.transaction(() => {
    const hasMeta = db
      .prepare<[], number>(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'esdb_index_meta'",
      )
      .pluck()
      .get();
    const version = hasMeta
      ? db
          .prepare<[], string>("SELECT value FROM esdb_index_meta WHERE key = 'layout_version'")
          .pluck()
          .get()
      : undefined;
    if (version === ID_INDEX_LAYOUT_VERSION) return;
    for (const table of OWNED) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec(TABLES);
    db.prepare(
      "INSERT OR REPLACE INTO esdb_index_meta (key, value) VALUES ('layout_version', ?)",
    ).run(ID_INDEX_LAYOUT_VERSION);
  }).immediate();
}
