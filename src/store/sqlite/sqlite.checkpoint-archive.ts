/**
 * Signed checkpoints in a SQLite file (the SQLite store's own): one table, `(origin, size)` ->
 * root, note and when it was kept, with triggers that refuse every update and delete as the
 * log's do. It is no projection's table, so a rebuild or a new layout of the tree never drops a
 * signature; a series only grows, checked in the write transaction that adds to it.
 */
import type Database from 'better-sqlite3';
import type {
  ArchivedCheckpoint,
  CheckpointArchive,
  CheckpointSeries,
} from '../checkpoint-archive.port.js';

/** The table of signed checkpoints. */
export const CHECKPOINTS_TABLE = 'tlog_checkpoints';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${CHECKPOINTS_TABLE} (
  origin   TEXT NOT NULL,
  size     INTEGER NOT NULL,
  root     BLOB NOT NULL,
  note     TEXT NOT NULL,
  kept_at  TEXT NOT NULL,
  PRIMARY KEY (origin, size)
) WITHOUT ROWID, STRICT;
CREATE TRIGGER IF NOT EXISTS ${CHECKPOINTS_TABLE}_insert_only_update
  BEFORE UPDATE ON ${CHECKPOINTS_TABLE}
  BEGIN SELECT RAISE(ABORT, 'memledger signed checkpoints are insert-only'); END;
CREATE TRIGGER IF NOT EXISTS ${CHECKPOINTS_TABLE}_insert_only_delete
  BEFORE DELETE ON ${CHECKPOINTS_TABLE}
  BEGIN SELECT RAISE(ABORT, 'memledger signed checkpoints are insert-only'); END;`;

interface Row {
  readonly size: number;
  readonly root: Buffer;
  readonly note: string;
}

/** The checkpoint archive in `db` (its table and triggers created when missing). */
export function sqliteCheckpointArchive(db: Database.Database): CheckpointArchive {
  const exists = db
    .prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`)
    .get(CHECKPOINTS_TABLE);
  if (exists === undefined) db.transaction(() => db.exec(SCHEMA)).immediate();
  const sql = {
    latest: db.prepare<[string], Row>(
      `SELECT size, root, note FROM ${CHECKPOINTS_TABLE} WHERE origin = ? ORDER BY size DESC LIMIT 1`,
    ),
    at: db.prepare<[string, number], Row>(
      `SELECT size, root, note FROM ${CHECKPOINTS_TABLE} WHERE origin = ? AND size = ?`,
    ),
    insert: db.prepare<[string, number, Buffer, string, string]>(
      `INSERT INTO ${CHECKPOINTS_TABLE} (origin, size, root, note, kept_at) VALUES (?, ?, ?, ?, ?)`,
    ),
  };
  const kept = (row: Row | undefined): ArchivedCheckpoint | undefined =>
    row && { size: row.size, root: row.root, note: row.note, position: row.size };
  const add = db.transaction(
    (
      series: CheckpointSeries,
      checkpoint: Omit<ArchivedCheckpoint, 'position'>,
      after?: number,
    ) => {
      const latest = sql.latest.get(series.origin)?.size;
      if (latest !== after || (latest !== undefined && checkpoint.size <= latest)) return false;
      sql.insert.run(
        series.origin,
        checkpoint.size,
        Buffer.from(checkpoint.root),
        checkpoint.note,
        new Date().toISOString(),
      );
      return true;
    },
  );
  return {
    latest: async (series) => kept(sql.latest.get(series.origin)),
    at: async (series, size) => kept(sql.at.get(series.origin, size)),
    add: async (series, checkpoint, after) => add.immediate(series, checkpoint, after?.position),
  };
}
