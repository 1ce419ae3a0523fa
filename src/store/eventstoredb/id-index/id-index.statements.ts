/**
 * The SQL of the EventStoreDB id index (tables in id-index/id-index.schema.ts): the rows it
 * reads and the statements it prepares once per file.
 */
import type Database from 'better-sqlite3';
import { multiRowInsert, type MultiRowInsert } from '../../../db/multi-row-insert.js';

/** An id as the index stores it: 16 bytes for a UUID, else its text (sqlite.codec.ts idKey). */
export type IdKey = Buffer | string;

/** One id's row. */
export interface EntryRow {
  kind: number;
  seq: number;
  deleted_by: Uint8Array | string | null;
  deleted_seq: number | null;
  erased_by: Uint8Array | string | null;
  erased_seq: number | null;
}

/** One memory's checkpoint row. */
export interface CheckpointRow {
  last_seq: number | null;
  last_id: Uint8Array | string | null;
}

type Write<P extends unknown[]> = Database.Statement<P>;

/** The statements of one index file, shared by all its memories. */
export interface Statements {
  readonly memKey: Database.Statement<[string], number>;
  readonly addMemory: Write<[string]>;
  readonly checkpoint: Database.Statement<[number], CheckpointRow>;
  readonly checkpointSeq: Database.Statement<[number], number | null>;
  readonly setCheckpoint: Write<[number | null, IdKey | null, number]>;
  readonly moveCheckpoint: Write<[number, IdKey, number, number | null]>;
  readonly dataVersion: Database.Statement<[], number>;
  readonly entry: Database.Statement<[number, IdKey], EntryRow>;
  /**
   * n rows (mem, id, kind, seq) in one statement (src/db/multi-row-insert.ts). REPLACE: an id the
   * stream holds twice is indexed at its later event, as a Map would.
   */
  readonly putRows: MultiRowInsert<number | IdKey>;
  readonly markDeleted: Write<[IdKey, number, number, IdKey]>;
  readonly markErased: Write<[IdKey, number, number, IdKey]>;
  readonly clear: Write<[number]>;
}

/** Prepares the statements once, when the file opens. */
export function prepare(db: Database.Database): Statements {
  return {
    putRows: multiRowInsert(
      db,
      'INSERT OR REPLACE INTO esdb_index_ids (mem, id, kind, seq) VALUES',
      4,
    ),
    memKey: db
      .prepare<[string], number>('SELECT mem FROM esdb_index_streams WHERE stream = ?')
      .pluck(),
    addMemory: db.prepare<[string]>('INSERT OR IGNORE INTO esdb_index_streams (stream) VALUES (?)'),
    checkpoint: db.prepare<[number], CheckpointRow>(
      'SELECT last_seq, last_id FROM esdb_index_streams WHERE mem = ?',
    ),
    checkpointSeq: db
      .prepare<[number], number | null>('SELECT last_seq FROM esdb_index_streams WHERE mem = ?')
      .pluck(),
    setCheckpoint: db.prepare<[number | null, IdKey | null, number]>(
      'UPDATE esdb_index_streams SET last_seq = ?, last_id = ? WHERE mem = ?',
    ),
    // Moves the checkpoint only from where the caller believes it is (IS: null matches null); a
    // change count of 0 says another process moved it.
    moveCheckpoint: db.prepare<[number, IdKey, number, number | null]>(
      'UPDATE esdb_index_streams SET last_seq = ?, last_id = ? WHERE mem = ? AND last_seq IS ?',
    ),
    // Changes whenever another connection commits to the file (never for this one's commits).
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    entry: db.prepare<[number, IdKey], EntryRow>(
      `SELECT kind, seq, deleted_by, deleted_seq, erased_by, erased_seq FROM esdb_index_ids
        WHERE mem = ? AND id = ?`,
    ),
    // The first deletion counts, as in replay(); an unknown target is left for replay to reject.
    markDeleted: db.prepare<[IdKey, number, number, IdKey]>(
      `UPDATE esdb_index_ids SET deleted_by = ?, deleted_seq = ?
        WHERE mem = ? AND id = ? AND deleted_seq IS NULL`,
    ),
    markErased: db.prepare<[IdKey, number, number, IdKey]>(
      `UPDATE esdb_index_ids SET erased_by = ?, erased_seq = ?
        WHERE mem = ? AND id = ? AND erased_seq IS NULL`,
    ),
    clear: db.prepare<[number]>('DELETE FROM esdb_index_ids WHERE mem = ?'),
  };
}
