/**
 * A witness's durable state, in a SQLite file: per origin, the latest checkpoint it cosigned
 * (size, root and the cosigned note), plus insert-only records of every checkpoint it cosigned
 * and every validly signed one it refused (evidence of a log's misbehaviour). Checking the old
 * size and storing the new checkpoint happen in one IMMEDIATE transaction, so two requests for
 * one origin — in this process or another sharing the file — can never roll a log back.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openConnection } from '../../db/better-sqlite3.js';
import { MemoryError } from '../../core/index.js';

/** The latest checkpoint cosigned for an origin. */
export interface WitnessedCheckpoint {
  readonly origin: string;
  readonly size: number;
  readonly root: Buffer;
  /** The checkpoint note with the log's and this witness's signatures. */
  readonly note: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS witness_latest (
  origin TEXT PRIMARY KEY,
  size   INTEGER NOT NULL,
  root   BLOB NOT NULL,
  note   TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS witness_cosigned (
  id     INTEGER PRIMARY KEY,
  origin TEXT NOT NULL,
  size   INTEGER NOT NULL,
  note   TEXT NOT NULL,
  at     TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS witness_refused (
  id     INTEGER PRIMARY KEY,
  origin TEXT NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL,
  body   TEXT NOT NULL,
  at     TEXT NOT NULL
) STRICT;
CREATE TRIGGER IF NOT EXISTS witness_cosigned_no_update BEFORE UPDATE ON witness_cosigned
  BEGIN SELECT RAISE(ABORT, 'the witness record is insert-only'); END;
CREATE TRIGGER IF NOT EXISTS witness_cosigned_no_delete BEFORE DELETE ON witness_cosigned
  BEGIN SELECT RAISE(ABORT, 'the witness record is insert-only'); END;
CREATE TRIGGER IF NOT EXISTS witness_refused_no_update BEFORE UPDATE ON witness_refused
  BEGIN SELECT RAISE(ABORT, 'the witness record is insert-only'); END;
CREATE TRIGGER IF NOT EXISTS witness_refused_no_delete BEFORE DELETE ON witness_refused
  BEGIN SELECT RAISE(ABORT, 'the witness record is insert-only'); END;
`;

/** A witness state file. */
export class WitnessState {
  private constructor(private readonly db: Database.Database) {}

  /** Opens (creating) the state file at `path`. `TLOG_STATE_INVALID` when it cannot be used. */
  static open(path: string): WitnessState {
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      const db = openConnection(path);
      db.pragma('journal_mode = WAL');
      // A cosignature is answered only after its checkpoint is on disk, power loss included.
      db.pragma('synchronous = FULL');
      db.pragma('busy_timeout = 5000');
      db.exec(SCHEMA);
      return new WitnessState(db);
    } catch (cause) {
      throw new MemoryError(
        'TLOG_STATE_INVALID',
        `Witness state file ${path} cannot be opened: ${(cause as Error).message}`,
        {
          details: { path },
          cause,
        },
      );
    }
  }

  /** The latest checkpoint cosigned for `origin`. */
  latest(origin: string): WitnessedCheckpoint | undefined {
    return this.db
      .prepare<[string], WitnessedCheckpoint>(
        'SELECT origin, size, root, note FROM witness_latest WHERE origin = ?',
      )
      .get(origin);
  }

  /** Every origin with a cosigned checkpoint. */
  origins(): string[] {
    return this.db
      .prepare<[], string>('SELECT origin FROM witness_latest ORDER BY origin')
      .pluck()
      .all();
  }

  /**
   * Runs `decide` on the latest checkpoint of `origin` inside one IMMEDIATE transaction; when it
   * returns a checkpoint, that becomes the latest (and is recorded) before the transaction
   * commits. Whatever `decide` throws rolls everything back.
   */
  update<T>(
    origin: string,
    decide: (latest: WitnessedCheckpoint | undefined) => { next?: WitnessedCheckpoint; result: T },
  ): T {
    const run = this.db.transaction(() => {
      const { next, result } = decide(this.latest(origin));
      if (next !== undefined) {
        this.db
          .prepare(
            `INSERT INTO witness_latest (origin, size, root, note) VALUES (?, ?, ?, ?)
               ON CONFLICT (origin) DO UPDATE SET size = excluded.size, root = excluded.root, note = excluded.note`,
          )
          .run(origin, next.size, next.root, next.note);
        this.db
          .prepare('INSERT INTO witness_cosigned (origin, size, note, at) VALUES (?, ?, ?, ?)')
          .run(origin, next.size, next.note, new Date().toISOString());
      }
      return result;
    });
    return run.immediate();
  }

  /** Records a validly signed checkpoint the witness refused, as evidence. */
  recordRefusal(origin: string, status: number, reason: string, body: string): void {
    this.db
      .prepare(
        'INSERT INTO witness_refused (origin, status, reason, body, at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(origin, status, reason, body, new Date().toISOString());
  }

  /** The refusals recorded for `origin`, oldest first. */
  refusals(origin: string): { status: number; reason: string }[] {
    return this.db
      .prepare<[string], { status: number; reason: string }>(
        'SELECT status, reason FROM witness_refused WHERE origin = ? ORDER BY id',
      )
      .all(origin);
  }

  /** Closes the file. */
  close(): void {
    this.db.close();
  }
}
