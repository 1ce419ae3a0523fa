/**
 * The SQLite file layout. `events` is the log; `deletions` indexes which content a Deletion
 * removed, so the guard answers "already deleted?" with one lookup. Both tables are insert-only:
 * triggers abort any UPDATE or DELETE, so even a hand-written statement cannot rewrite history.
 */

/** The layout version this code writes and understands. */
export const SQLITE_SCHEMA_VERSION = '1';

/** Creates the tables, indexes and append-only triggers when they are missing. */
export const CREATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS memledger_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS events (
  memory_id TEXT    NOT NULL,
  seq       INTEGER NOT NULL,
  id        TEXT    NOT NULL,
  type      TEXT    NOT NULL,
  payload   TEXT    NOT NULL,
  PRIMARY KEY (memory_id, seq),
  UNIQUE (memory_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS deletions (
  memory_id    TEXT    NOT NULL,
  target_id    TEXT    NOT NULL,
  deletion_id  TEXT    NOT NULL,
  deletion_seq INTEGER NOT NULL,
  PRIMARY KEY (memory_id, target_id)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS deletions_append_only_update BEFORE UPDATE ON deletions
  BEGIN SELECT RAISE(ABORT, 'memledger deletions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS deletions_append_only_delete BEFORE DELETE ON deletions
  BEGIN SELECT RAISE(ABORT, 'memledger deletions are append-only'); END;

INSERT OR IGNORE INTO memledger_meta (key, value) VALUES ('schema_version', '${SQLITE_SCHEMA_VERSION}');
`;
