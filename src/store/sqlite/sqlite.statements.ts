import type Database from 'better-sqlite3';
import { multiRowInsert, type MultiRowInsert } from '../../db/multi-row-insert.js';
import {
  EVENT_TYPE_CODES,
  PAGE_ROW_COLUMNS,
  type PageRow,
  type StoredRow,
} from './sqlite.codec.js';

/** A stored row of `event_log`, as the reads select it. */
export type EventRow = StoredRow;

/** What the guard needs of one id: its row (payload only when asked for) and its Deletion. */
export interface EntryRow {
  readonly seq: number;
  readonly id: Uint8Array | string;
  readonly type: number;
  readonly version: number;
  readonly payload: string | null;
  readonly deletion_id: Uint8Array | string | null;
  readonly deletion_seq: number | null;
  readonly erasure_id: Uint8Array | string | null;
  readonly erasure_seq: number | null;
}

/** The prepared statements of the SQLite store: inserts and selects only. */
export interface Statements {
  readonly db: Database.Database;
  /** Records a memory's key, if it has none yet; run only in an append that writes. */
  readonly insertMemory: Database.Statement<[string]>;
  /** Plucked: the highest seq of the memory keyed so, or null. */
  readonly lastSeq: Database.Statement<[number], number | null>;
  /** Plucked: every memory id that holds an event. */
  readonly memoryIds: Database.Statement<[], string>;
  /** One id's row with its Deletion, payload included (for idempotency comparisons). */
  readonly entryWithPayload: Database.Statement<[string, Uint8Array | string], EntryRow>;
  /** One id's row with its Deletion, without the payload (a deletion target, a recalled id). */
  readonly entry: Database.Statement<[string, Buffer | string], EntryRow>;
  /**
   * {@link entry} for many ids at once: the rows (without payload) of the ids whose 16-byte keys
   * a JSON array names in hex. Those that are absent have no row.
   */
  readonly entries: Database.Statement<[string, string], EntryRow>;
  /** Plucked: the seq of one id (by its key), for the read models' lookups by id. */
  readonly seqOfId: Database.Statement<[string, Buffer | string], number>;
  /** {@link seqOfId} for the ids whose 16-byte keys a JSON array names in hex: [key, seq] rows. */
  readonly seqsOfIds: Database.Statement<[string, string], [Uint8Array | string, number]>;
  readonly readForwards: Database.Statement<[string, number, number, number], EventRow>;
  /**
   * {@link readForwards} as {@link PageRow} arrays, for catch-ups that take whole ranges as
   * stored: no Buffer and no row object per event.
   */
  readonly rangeForwards: Database.Statement<[string, number, number, number], PageRow>;
  /** Events of a memory at the seqs of a JSON array, as {@link PageRow} arrays (`raw`). */
  readonly eventsAt: Database.Statement<[string, string], PageRow>;
  readonly readBackwards: Database.Statement<[string, number, number, number], EventRow>;
  /** Plucked: a memory's key, or undefined before its first append. */
  readonly memoryKey: Database.Statement<[string], number>;
  /**
   * n rows of `event_log` in one statement (src/db/multi-row-insert.ts), each: memory key, seq,
   * id key, type code, version, payload.
   */
  readonly insertEvents: MultiRowInsert<number | Buffer | string>;
  /** deletion pos, memory key, target id key. */
  readonly insertDeletion: Database.Statement<[number | bigint, number, Buffer | string]>;
  /** erasure pos, memory key, target id key. */
  readonly insertErasure: Database.Statement<[number | bigint, number, Buffer | string]>;
  /** Plucked: the name of a type code memledger does not write (found in a migrated file). */
  readonly typeName: Database.Statement<[number], string>;
  /** A row when any message or document is stored with its words sealed (a scan, once at open). */
  readonly anySealed: Database.Statement<[], unknown>;
}

/** The key of the memory named by the statement's first parameter. */
const MEMORY = '(SELECT key FROM memories WHERE memory_id = ?)';

/** Prepares every statement once per connection. */
export function prepareStatements(db: Database.Database): Statements {
  const entry = <Key>(payload: string, id = '= ?') =>
    // Point lookups on (memory, id); the Deletion's id and seq come from its own row.
    db.prepare<[string, Key], EntryRow>(
      `SELECT e.seq, e.id, e.type, e.version, ${payload} AS payload,
              d.id AS deletion_id, d.seq AS deletion_seq, r.id AS erasure_id, r.seq AS erasure_seq
         FROM event_log e
         LEFT JOIN event_deletions x ON x.target_pos = e.pos
         LEFT JOIN event_log d ON d.pos = x.deletion_pos
         LEFT JOIN event_erasures y ON y.target_pos = e.pos
         LEFT JOIN event_log r ON r.pos = y.erasure_pos
        WHERE e.memory = ${MEMORY} AND e.id ${id}`,
    );
  const insertInto = 'INSERT INTO event_log (memory, seq, id, type, version, payload) VALUES';
  return {
    db,
    insertMemory: db.prepare<[string]>(
      'INSERT INTO memories (memory_id) VALUES (?) ON CONFLICT (memory_id) DO NOTHING',
    ),
    lastSeq: db
      .prepare<[number], number | null>('SELECT MAX(seq) FROM event_log WHERE memory = ?')
      .pluck(),
    memoryIds: db.prepare<[], string>('SELECT memory_id FROM memories ORDER BY memory_id').pluck(),
    // Payloads (possibly megabytes of document text) are read only for the ids being appended,
    // which need a content comparison.
    entryWithPayload: entry<Uint8Array | string>('e.payload'),
    entry: entry<Buffer | string>('NULL'),
    entries: entry<string>('NULL', 'IN (SELECT unhex(value) FROM json_each(?))'),
    seqOfId: db
      .prepare<[string, Buffer | string], number>(
        `SELECT seq FROM event_log WHERE memory = ${MEMORY} AND id = ?`,
      )
      .pluck(),
    seqsOfIds: db
      .prepare<[string, string], [Uint8Array | string, number]>(
        `SELECT id, seq FROM event_log
          WHERE memory = ${MEMORY} AND id IN (SELECT unhex(value) FROM json_each(?))`,
      )
      .raw(),
    // `LIMIT ? + 0`, not `LIMIT ?`: SQLite 3.53 plans with a bare LIMIT parameter's value and
    // re-prepares the statement whenever it is bound again, i.e. on every call (read-model.queries.ts).
    readForwards: db.prepare<[string, number, number, number], EventRow>(
      `SELECT seq, id, type, version, payload FROM event_log
        WHERE memory = ${MEMORY} AND seq >= ? AND seq <= ? ORDER BY seq ASC LIMIT ? + 0`,
    ),
    rangeForwards: db
      .prepare<[string, number, number, number], PageRow>(
        `SELECT ${PAGE_ROW_COLUMNS} FROM event_log
          WHERE memory = ${MEMORY} AND seq >= ? AND seq <= ? ORDER BY seq ASC LIMIT ? + 0`,
      )
      .raw(),
    eventsAt: db
      .prepare<[string, string], PageRow>(
        `SELECT ${PAGE_ROW_COLUMNS} FROM event_log
          WHERE memory = ${MEMORY} AND seq IN (SELECT value FROM json_each(?))`,
      )
      .raw(),
    readBackwards: db.prepare<[string, number, number, number], EventRow>(
      `SELECT seq, id, type, version, payload FROM event_log
        WHERE memory = ${MEMORY} AND seq <= ? AND seq >= ? ORDER BY seq DESC LIMIT ? + 0`,
    ),
    memoryKey: db.prepare<[string], number>('SELECT key FROM memories WHERE memory_id = ?').pluck(),
    insertEvents: multiRowInsert(db, insertInto, 6),
    insertDeletion: db.prepare<[number | bigint, number, Buffer | string]>(
      `INSERT INTO event_deletions (target_pos, deletion_pos)
       SELECT target.pos, ? FROM event_log target WHERE target.memory = ? AND target.id = ?`,
    ),
    insertErasure: db.prepare<[number | bigint, number, Buffer | string]>(
      `INSERT INTO event_erasures (target_pos, erasure_pos)
       SELECT target.pos, ? FROM event_log target WHERE target.memory = ? AND target.id = ?`,
    ),
    typeName: db.prepare<[number], string>('SELECT type FROM event_types WHERE code = ?').pluck(),
    anySealed: db.prepare(
      `SELECT 1 FROM event_log WHERE type IN (${EVENT_TYPE_CODES.Message}, ${EVENT_TYPE_CODES.Document})
          AND version >= 2 AND json_extract(payload, '$.sealed') IS NOT NULL LIMIT 1`,
    ),
  };
}
