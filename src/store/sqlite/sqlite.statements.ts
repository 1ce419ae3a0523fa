import type Database from 'better-sqlite3';

/** A stored row of `events`. */
export interface EventRow {
  readonly seq: number;
  readonly type: string;
  readonly payload: string;
}

/** What the guard needs of one id: its row (payload only when asked for) and its Deletion. */
export interface EntryRow {
  readonly id: string;
  readonly seq: number;
  readonly type: string;
  readonly payload: string | null;
  readonly deletion_id: string | null;
  readonly deletion_seq: number | null;
}

/** The prepared statements of the SQLite store: inserts and selects only. */
export interface Statements {
  readonly db: Database.Database;
  /** Plucked: the highest seq of a memory, or null. */
  readonly lastSeq: Database.Statement<[string], number | null>;
  /** Plucked: every memory id that holds an event. */
  readonly memoryIds: Database.Statement<[], string>;
  /** One id's row with its Deletion, payload included (for idempotency comparisons). */
  readonly entryWithPayload: Database.Statement<[string, string], EntryRow>;
  /** One id's row with its Deletion, without the payload (a deletion target, a recalled id). */
  readonly entry: Database.Statement<[string, string], EntryRow>;
  readonly readForwards: Database.Statement<[string, number, number, number], EventRow>;
  readonly readBackwards: Database.Statement<[string, number, number, number], EventRow>;
  readonly insertEvent: Database.Statement<[string, number, string, string, string]>;
  readonly insertDeletion: Database.Statement<[string, string, string, number]>;
}

/** Prepares every statement once per connection. */
export function prepareStatements(db: Database.Database): Statements {
  return {
    db,
    lastSeq: db
      .prepare<[string], number | null>('SELECT MAX(seq) FROM events WHERE memory_id = ?')
      .pluck(),
    memoryIds: db
      .prepare<[], string>('SELECT DISTINCT memory_id FROM events ORDER BY memory_id')
      .pluck(),
    // Point lookups on the (memory_id, id) index. Payloads (possibly megabytes of document text)
    // are read only for the ids being appended, which need a content comparison.
    entryWithPayload: db.prepare<[string, string], EntryRow>(
      `SELECT e.id, e.seq, e.type, e.payload, d.deletion_id, d.deletion_seq
         FROM events e
         LEFT JOIN deletions d ON d.memory_id = e.memory_id AND d.target_id = e.id
        WHERE e.memory_id = ? AND e.id = ?`,
    ),
    entry: db.prepare<[string, string], EntryRow>(
      `SELECT e.id, e.seq, e.type, NULL AS payload, d.deletion_id, d.deletion_seq
         FROM events e
         LEFT JOIN deletions d ON d.memory_id = e.memory_id AND d.target_id = e.id
        WHERE e.memory_id = ? AND e.id = ?`,
    ),
    readForwards: db.prepare<[string, number, number, number], EventRow>(
      'SELECT seq, type, payload FROM events WHERE memory_id = ? AND seq >= ? AND seq <= ? ORDER BY seq ASC LIMIT ?',
    ),
    readBackwards: db.prepare<[string, number, number, number], EventRow>(
      'SELECT seq, type, payload FROM events WHERE memory_id = ? AND seq <= ? AND seq >= ? ORDER BY seq DESC LIMIT ?',
    ),
    insertEvent: db.prepare<[string, number, string, string, string]>(
      'INSERT INTO events (memory_id, seq, id, type, payload) VALUES (?, ?, ?, ?, ?)',
    ),
    insertDeletion: db.prepare<[string, string, string, number]>(
      'INSERT INTO deletions (memory_id, target_id, deletion_id, deletion_seq) VALUES (?, ?, ?, ?)',
    ),
  };
}
