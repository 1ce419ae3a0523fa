/**
 * The file layout of the EventStoreDB id index (id-index/id-index.ts), version 2 (version 1
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
import type Database from 'better-sqlite3';
import { openSqliteFile, type SqliteFile } from '../../../db/sqlite-file.js';

/** The layout version this code writes; a file holding any other is dropped and rebuilt. */
export const ID_INDEX_LAYOUT_VERSION = '2';

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

/** What the file is, in messages. */
export const ID_INDEX_ROLE = 'EventStoreDB id index';

/**
 * Opens (creating when needed) an id index file (src/db/sqlite-file.ts) with the layout of this
 * version; derived data, so `synchronous=NORMAL`: a commit lost with the machine is read again
 * from the stream.
 */
export function openIdIndexFile(path: string, busyTimeoutMs = 5000): SqliteFile {
  const file = openSqliteFile({
    path,
    role: ID_INDEX_ROLE,
    synchronous: 'NORMAL',
    busyTimeoutMs,
    // It holds ids, kinds and seqs, never words: nothing for an erasure to scrub. (A checkpoint
    // would also look like a commit to the other instances sharing the file.)
    scrubOnOpen: false,
  });
  try {
    file.run('open', () => ensureLayout(file.db));
    return file;
  } catch (error) {
    file.close();
    throw error;
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
