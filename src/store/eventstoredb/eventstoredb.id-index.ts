/**
 * The per-memory id index of the EventStoreDB store: what the append guard and `get(id)` need
 * to know about every id in a memory, without scanning the stream.
 *
 * Per id it holds kind, seq and deletedBy, not the event, in a SQLite file (layout in
 * eventstoredb.id-index.schema.ts; `:memory:` by default), so process memory holds no per-event
 * structure. Each memory's checkpoint (the last seq applied and the id of the event there) is
 * committed with its rows. The one decision that needs an event's content (invariant 9: the
 * same id appended again) reads that single revision, which happens only on retries.
 *
 * It is brought up to date by reading the stream forwards from its checkpoint
 * (eventstoredb.catch-up.ts) right before each guard decision that needs it and each `get`,
 * and by the guard itself with the events it just appended (their success proves what the
 * stream holds, see eventstoredb.append.ts). A
 * read rather than a live subscription, because the guard must decide on the log as it is
 * *now*: a subscription is at best "recent", and the extra read is one small RPC that usually
 * returns nothing.
 *
 * Several processes may share one file: writes take the write lock first (`BEGIN IMMEDIATE`)
 * and re-read the checkpoint inside, skipping events another process applied meanwhile; the
 * guard's view of a memory is read in one transaction, so it is one consistent prefix of the log.
 */
import type Database from 'better-sqlite3';
import { MemoryError, type Sequenced, type StoredEntry } from '../../core/index.js';
import { idKey, idOfKey } from '../sqlite/sqlite.codec.js';
import { KIND_CODES, kindOfCode, openIdIndexDatabase } from './eventstoredb.id-index.schema.js';
import { prepare, type IdKey, type Statements } from './eventstoredb.id-index.statements.js';

/** Serializes async work: one catch-up or guarded append of a memory at a time in this process. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every earlier `run` has settled. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** A memory's checkpoint: the last seq applied (`null`: none) and the id of the event there. */
export interface Checkpoint {
  readonly seq: number | null;
  readonly id: string | null;
}

/** The guard's slice of the index: its checkpoint and the entries of the ids asked for. */
export interface IndexView {
  readonly lastSeq: number | null;
  readonly entries: Map<string, StoredEntry>;
}

/** The id index file of one store: one SQLite connection, shared by all its memories. */
export class IdIndexFile {
  private readonly db: Database.Database;
  private readonly sql: Statements;
  /** One transaction wrapper for every unit of work: building one per call costs on every append. */
  private readonly transaction: Database.Transaction<(work: () => unknown) => unknown>;

  /** Opens (creating when needed) the file at `path`; `:memory:` for a private one. */
  constructor(readonly path: string) {
    this.db = openIdIndexDatabase(path);
    this.sql = prepare(this.db);
    this.transaction = this.db.transaction((work: () => unknown) => work());
  }

  /** The index of one memory's stream. */
  memory(memoryId: string, streamName: string): IdIndex {
    return new IdIndex(this, this.sql, memoryId, streamName);
  }

  /** Runs `work` translating SQLite errors; `mode` picks the transaction, if any. */
  run<T>(what: string, work: () => T, mode?: 'read' | 'write'): T {
    if (!this.db.open) {
      throw new MemoryError('STORE_CLOSED', `The EventStoreDB id index ${this.path} is closed.`);
    }
    try {
      if (mode === undefined) return work();
      return (mode === 'write' ? this.transaction.immediate(work) : this.transaction(work)) as T;
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      const code = (error as { code?: unknown }).code;
      const busy = code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
      throw new MemoryError(
        busy ? 'STORE_UNAVAILABLE' : 'STORE_FAILED',
        `EventStoreDB id index ${this.path} failed to ${what}: ${(error as Error).message}`,
        { details: { path: this.path, operation: what }, cause: error },
      );
    }
  }

  /** Closes the file (once). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** What the index knows of one memory, up to its checkpoint. */
export class IdIndex {
  private key: number | undefined;
  /**
   * True once a catch-up of this process found the stream holding the checkpoint's event: only
   * then may the guard decide on the index without reading first.
   */
  verified = false;

  constructor(
    private readonly file: IdIndexFile,
    private readonly sql: Statements,
    readonly memoryId: string,
    private readonly streamName: string,
  ) {}

  /** Where error messages say the index is. */
  get where(): string {
    return `${this.file.path} (stream ${this.streamName})`;
  }

  /** The checkpoint as the file holds it now. */
  checkpoint(): Checkpoint {
    return this.file.run('read a checkpoint', () => this.checkpointIn(this.mem()));
  }

  /** The checkpoint and the entries of `ids` (lowercase), read as one snapshot. */
  view(ids: Iterable<string>): IndexView {
    const mem = this.file.run('register a memory', () => this.mem());
    return this.file.run(
      'read entries',
      () => {
        const entries = new Map<string, StoredEntry>();
        for (const id of ids) {
          const entry = this.entryIn(mem, id);
          if (entry !== undefined) entries.set(id, entry);
        }
        return { lastSeq: this.checkpointIn(mem).seq, entries };
      },
      'read',
    );
  }

  /** The entry of an id (lowercase), without its event. */
  entry(id: string): StoredEntry | undefined {
    return this.file.run('read an entry', () => this.entryIn(this.mem(), id));
  }

  /**
   * Applies events read from the stream after `base` (the checkpoint the read started from), in
   * one write transaction with the new checkpoint. Events the file already holds (another process
   * applied them meanwhile) are skipped. Returns false, applying nothing, when the file's
   * checkpoint went back behind `base` (another process reset it): read again from there.
   *
   * Refuses anything but the next seq after the checkpoint: a gap means the stream is not a
   * memledger log (truncated, soft-deleted and rewritten), and the guard must not decide on it.
   */
  apply(base: number | null, events: readonly Sequenced[]): boolean {
    return this.file.run(
      'apply events',
      () => {
        const mem = this.mem();
        let last = this.checkpointIn(mem).seq ?? -1;
        if (last < (base ?? -1)) return false;
        let lastId: IdKey | null = null;
        for (const event of events) {
          if (event.seq <= last) continue;
          if (event.seq !== last + 1) this.gap(last + 1, event.seq);
          const id = idKey(event.id);
          this.sql.put.run(mem, id, KIND_CODES[event.kind], event.seq);
          if (event.kind === 'deletion') {
            for (const target of event.targets) {
              this.sql.markDeleted.run(id, event.seq, mem, idKey(target));
            }
          } else if (event.kind === 'erasure') {
            for (const target of event.targets) {
              this.sql.markErased.run(id, event.seq, mem, idKey(target));
            }
          }
          last = event.seq;
          lastId = id;
        }
        if (lastId !== null) this.sql.setCheckpoint.run(last, lastId, mem);
        return true;
      },
      'write',
    );
  }

  /**
   * Drops the memory's rows and checkpoint, so the next catch-up rebuilds them from the stream,
   * unless the file's checkpoint is no longer `stale` (another process moved it meanwhile).
   */
  reset(stale: Checkpoint): void {
    this.file.run(
      'reset a memory',
      () => {
        const mem = this.mem();
        const now = this.checkpointIn(mem);
        if (now.seq !== stale.seq || now.id !== stale.id) return;
        this.sql.clear.run(mem);
        this.sql.setCheckpoint.run(null, null, mem);
      },
      'write',
    );
  }

  /** The memory's integer key, registered on first use. */
  private mem(): number {
    if (this.key !== undefined) return this.key;
    let key = this.sql.memKey.get(this.streamName);
    if (key === undefined) {
      this.sql.addMemory.run(this.streamName);
      key = this.sql.memKey.get(this.streamName)!;
    }
    return (this.key = key);
  }

  private checkpointIn(mem: number): Checkpoint {
    const row = this.sql.checkpoint.get(mem);
    const id = row?.last_id;
    return { seq: row?.last_seq ?? null, id: id === null || id === undefined ? null : idOfKey(id) };
  }

  private entryIn(mem: number, id: string): StoredEntry | undefined {
    const row = this.sql.entry.get(mem, idKey(id));
    if (row === undefined) return undefined;
    const deletedBy =
      row.deleted_by === null || row.deleted_seq === null
        ? null
        : { id: idOfKey(row.deleted_by), seq: row.deleted_seq };
    const erasedBy =
      row.erased_by === null || row.erased_seq === null
        ? null
        : { id: idOfKey(row.erased_by), seq: row.erased_seq };
    return { kind: kindOfCode(row.kind, this.where), seq: row.seq, deletedBy, erasedBy };
  }

  private gap(expected: number, actual: number): never {
    throw new MemoryError(
      'LOG_INVARIANT_VIOLATED',
      `Memory ${this.memoryId} holds seq ${actual} where seq ${expected} was expected; its stream has a gap.`,
      { details: { memoryId: this.memoryId, expected, actual } },
    );
  }
}

/** An index with the lock that keeps its catch-ups and the guarded appends in order. */
export interface IndexedMemory {
  readonly index: IdIndex;
  readonly mutex: Mutex;
}

/** Creates the index state of one memory in `file`. */
export function indexedMemory(
  file: IdIndexFile,
  memoryId: string,
  streamName: string,
): IndexedMemory {
  return { index: file.memory(memoryId, streamName), mutex: new Mutex() };
}
