/**
 * The id index file of the EventStoreDB store (id-index/id-index.ts): one SQLite connection,
 * its prepared statements, its transactions and error translation, and the checkpoints this
 * connection knows without reading them.
 *
 * Known checkpoints save the guard a read and a transaction per append. They are only trusted
 * while `PRAGMA data_version` is unchanged: another process sharing the file that commits
 * anything (an append, a catch-up, a reset) changes it, and they are read again.
 *
 * The rows of this process's appends wait in memory (each memory's tail,
 * id-index/id-index.ts) and are written together `commitDelayMs` after the first of a burst,
 * and a file commits them then; catch-ups' writes join the same delayed transaction
 * (src/db/delayed-commit.ts). The index is derived from the streams: a crash that loses the last
 * rows only makes the next catch-up read those events again. A burst of appends then costs one
 * statement per memory, not a transaction, two statements and a savepoint each.
 */
import type Database from 'better-sqlite3';
import { MemoryError } from '../../../core/index.js';
import { DelayedCommit } from '../../../db/delayed-commit.js';
import { translateSqliteError, type SqliteFile } from '../../../db/sqlite-file.js';
import { ID_INDEX_ROLE, openIdIndexFile } from './id-index.schema.js';
import { prepare, type Statements } from './id-index.statements.js';

/** What holds rows for the file to write later: a memory's index with a tail. */
export interface TailHolder {
  writeTail(): void;
}

/** The id index file of one store: one SQLite connection, shared by all its memories. */
export class IdIndexFile {
  private readonly file: SqliteFile;
  private readonly db: Database.Database;
  /** The prepared statements, for the {@link IdIndex} of each memory. */
  readonly sql: Statements;
  /** One transaction wrapper for every unit of work: building one per call costs on every append. */
  private readonly transaction: Database.Transaction<(work: () => unknown) => unknown>;
  /** False for `:memory:`: no other connection sees that database, so nothing moves under this one. */
  private readonly shared: boolean;
  /**
   * Checkpoint seqs (by memory key) as this connection last read or committed them. They hold
   * while the file's `PRAGMA data_version` is `knownVersion`: it changes exactly when another
   * connection commits, so an unchanged one proves no other process moved any of them.
   */
  private readonly knownSeqs = new Map<number, number | null>();
  private knownVersion = 0;
  /** Writes to a file commit together (a burst's rows in one transaction); to `:memory:`, at once. */
  private readonly delayed: DelayedCommit | undefined;
  /** The memories with rows held back, written when {@link tailTimer} fires. */
  private readonly tails = new Set<TailHolder>();
  private tailTimer: NodeJS.Timeout | undefined;

  /**
   * Opens (creating when needed) the file at `path`; `:memory:` for a private one. A file's
   * writes commit `commitDelayMs` after the first of a burst (0: each at once).
   */
  constructor(
    readonly path: string,
    private readonly commitDelayMs = DEFAULT_COMMIT_DELAY_MS,
  ) {
    this.file = openIdIndexFile(path);
    this.db = this.file.db;
    this.sql = prepare(this.db);
    this.transaction = this.db.transaction((work: () => unknown) => work());
    this.shared = path !== ':memory:' && path !== '';
    // What this connection knew of its uncommitted checkpoints went with a lost transaction.
    const lost = () => this.knownSeqs.clear();
    this.delayed = this.shared ? new DelayedCommit(this.db, path, commitDelayMs, lost) : undefined;
  }

  /** Runs `work` translating SQLite errors; `mode` picks the transaction, if any. */
  run<T>(what: string, work: () => T, mode?: 'read' | 'write'): T {
    if (!this.db.open) {
      throw new MemoryError('STORE_CLOSED', `The EventStoreDB id index ${this.path} is closed.`);
    }
    try {
      if (mode === undefined) return work();
      if (mode === 'write') this.delayed?.join();
      // Within a delayed transaction both nest as a savepoint: a failed write rolls back alone.
      return (mode === 'write' ? this.transaction.immediate(work) : this.transaction(work)) as T;
    } catch (error) {
      this.delayed?.afterError();
      throw translateSqliteError(error, { what, role: ID_INDEX_ROLE, path: this.path });
    }
  }

  /**
   * The known checkpoint seq of `mem`, or undefined when this connection must read it: never
   * read, or another connection committed since. Outside a transaction it is the file's
   * checkpoint only as long as {@link unchanged} says so.
   */
  knownSeq(mem: number): number | null | undefined {
    if (this.shared) {
      const version = this.sql.dataVersion.get()!;
      if (version !== this.knownVersion) {
        this.knownSeqs.clear();
        this.knownVersion = version;
      }
    }
    return this.knownSeqs.get(mem);
  }

  /** True when no other connection committed since the last {@link knownSeq}. */
  unchanged(): boolean {
    return !this.shared || this.sql.dataVersion.get() === this.knownVersion;
  }

  /** The checkpoint seq of `mem`, known or read; call it inside a transaction. */
  checkpointSeq(mem: number): number | null {
    const known = this.knownSeq(mem);
    if (known !== undefined) return known;
    const seq = this.sql.checkpointSeq.get(mem) ?? null;
    this.knownSeqs.set(mem, seq);
    return seq;
  }

  /** Call before a statement that writes outside {@link run}'s write mode (it commits alone). */
  beforeWrite(): void {
    this.delayed?.commitOthers();
  }

  /** Records the checkpoint of `mem` after this connection committed it; `undefined` forgets it. */
  committed(mem: number, seq: number | null | undefined): void {
    if (seq === undefined) this.knownSeqs.delete(mem);
    else this.knownSeqs.set(mem, seq);
  }

  /**
   * True when an append's rows may wait for others ({@link holdTail}): a commit delay is set and
   * no other connection has been seen committing to the file (then each commits at once).
   */
  holdsTails(): boolean {
    return this.commitDelayMs > 0 && this.delayed?.isShared() !== true;
  }

  /** `holder` has rows to write: they are written with the others of the burst. */
  holdTail(holder: TailHolder): void {
    this.tails.add(holder);
    if (this.tailTimer !== undefined) return;
    this.tailTimer = setTimeout(() => this.writeTails(), this.commitDelayMs);
    // The burst's reads then run inside the transaction its rows will be written in: a read
    // outside one takes and drops a WAL read lock per statement, several times the statement.
    try {
      this.delayed?.join();
    } catch {
      // Locked by another process: the rows wait in memory all the same, and reads lock alone.
    }
  }

  /** Writes every held tail and commits them with the delayed writes. */
  private writeTails(): void {
    clearTimeout(this.tailTimer);
    this.tailTimer = undefined;
    for (const holder of this.tails) holder.writeTail();
    this.tails.clear();
    this.delayed?.commit();
  }

  /** Writes the held rows, commits the delayed writes, if any, and closes the file (once). */
  close(): void {
    if (!this.db.open) return;
    this.writeTails();
    this.file.close();
  }
}

/** How long a file's first write of a burst waits for others to commit with it. */
export const DEFAULT_COMMIT_DELAY_MS = 5;
