/**
 * Delayed commit for a SQLite file of derived data: the writes of a burst join one open write
 * transaction that commits `delayMs` after it began, so a hundred appends cost one commit (one
 * lock round, one WAL header, their pages written once) instead of a hundred, each of which
 * costs the main thread several times more on a file than in memory. The EventStoreDB id index
 * uses it: it is the one file whose writes sit on every append's path.
 *
 * Only for data a crash may lose: the writes of the open transaction die with the process, and
 * the owner derives them again from its source of truth (the id index reads the stream on from
 * the checkpoint it committed with its rows). Anything that must survive a crash once
 * acknowledged (the log, the key store) commits at once or through src/db/group-commit.ts.
 *
 * Other connections to the same file:
 * - in this process, one about to write first commits the others' open transactions: they would
 *   otherwise hold the write lock while this thread, the only one that could commit them,
 *   busy-waits for it;
 * - in another process, a writer waits for the lock at most `delayMs` (its busy timeout covers
 *   it). Once this connection sees another connection commit to the file (`PRAGMA
 *   data_version`), it stops delaying and commits each write at once, as before, so instances
 *   sharing one file never take turns waiting for each other's delays.
 */
import type Database from 'better-sqlite3';
import { noteRollback } from './transactions.js';

/** The connections of this process with a delayed transaction open, by file path. */
const openByPath = new Map<string, Set<DelayedCommit>>();

/** One connection's delayed transaction (see the module comment). */
export class DelayedCommit {
  private timer: NodeJS.Timeout | undefined;
  /** Set once another connection committed to the file: from then on, writes commit at once. */
  private shared = false;
  private readonly version: Database.Statement<[], number>;
  private seenVersion: number;

  /**
   * `delayMs` 0 turns delaying off. `lost` runs when an open transaction ended without its
   * commit (SQLite rolled it back on an error, or the commit failed): whatever the owner cached
   * about its uncommitted writes is wrong from then on.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly delayMs: number,
    private readonly lost: () => void,
  ) {
    this.version = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.seenVersion = this.version.get()!;
  }

  /**
   * Before a write: makes sure a delayed transaction is open, opening one (`BEGIN IMMEDIATE`,
   * which may wait for another process's lock and throw SQLITE_BUSY) when none is. Returns
   * false when this write must commit at once instead: delaying is off, or the file is shared.
   * Within the open transaction the caller's own transaction nests as a savepoint, so a write
   * that fails still rolls back alone.
   */
  join(): boolean {
    if (this.timer !== undefined) {
      if (this.db.inTransaction) return true;
      // Something ended it without a commit (an error the caller did not report): lost.
      this.end(true);
    }
    this.commitOthers();
    if (this.delayMs <= 0 || this.db.inTransaction || this.isShared()) return false;
    this.db.exec('BEGIN IMMEDIATE');
    this.timer = setTimeout(() => this.commit(), this.delayMs);
    let open = openByPath.get(this.path);
    if (open === undefined) openByPath.set(this.path, (open = new Set()));
    open.add(this);
    return true;
  }

  /**
   * True once another connection has been seen committing to the file (from then on, writes
   * commit at once): an owner holding writes back in memory stops doing so too.
   */
  isShared(): boolean {
    if (!this.shared && this.version.get() !== this.seenVersion) this.shared = true;
    return this.shared;
  }

  /**
   * Commits the delayed transactions other connections of this process hold on the file; call
   * it before a write outside {@link join} (a statement that commits on its own).
   */
  commitOthers(): void {
    for (const other of openByPath.get(this.path) ?? []) if (other !== this) other.commit();
  }

  /**
   * After a write that threw: SQLite ends the whole transaction on some errors (I/O, disk
   * full), taking the delayed writes before it along; the owner hears of it through `lost`.
   */
  afterError(): void {
    if (this.timer !== undefined && !this.db.inTransaction) this.end(true);
  }

  /**
   * Commits the open transaction, if any. Never throws: it runs from a timer, where an error
   * would end the process. A failed commit is rolled back and reported through `lost`.
   */
  commit(): void {
    if (this.timer === undefined) return;
    let failed = !this.db.inTransaction;
    if (!failed) {
      try {
        this.db.exec('COMMIT');
      } catch {
        failed = true;
        try {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
        } catch {
          // Nothing more to undo: SQLite rolls back what it could not commit.
        }
      }
    }
    this.end(failed);
  }

  private end(failed: boolean): void {
    if (failed) noteRollback(this.db);
    clearTimeout(this.timer);
    this.timer = undefined;
    openByPath.get(this.path)?.delete(this);
    if (openByPath.get(this.path)?.size === 0) openByPath.delete(this.path);
    // Other connections' commits seen from here on mark the file as shared; our own do not
    // change data_version.
    if (this.db.open) this.seenVersion = this.version.get()!;
    if (failed) this.lost();
  }
}
