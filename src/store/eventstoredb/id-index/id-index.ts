/**
 * The per-memory id index of the EventStoreDB store: what the append guard and `get(id)` need
 * to know about every id in a memory, without scanning the stream.
 *
 * Per id it holds kind, seq and deletedBy, not the event, in a SQLite file (layout in
 * id-index/id-index.schema.ts; `:memory:` by default), so process memory holds no per-event
 * structure beyond the rows of the last few milliseconds' appends, written together (a tail of
 * at most {@link MAX_ROWS_PER_INSERT} per memory, see {@link IdIndex.appended}). Each memory's
 * checkpoint (the last seq applied and the id of the event there) is committed with its rows.
 * The one decision that needs an event's content (invariant 9: the same id appended again)
 * reads that single revision, which happens only on retries.
 *
 * It is brought up to date by reading the stream forwards from its checkpoint
 * (eventstoredb.catch-up.ts) right before each guard decision that needs it and each `get`,
 * and by the guard itself with the events it just appended (their success proves what the
 * stream holds, see eventstoredb.write.ts). A read rather than a live subscription, because the
 * guard must decide on the log as it is *now*: a subscription is at best "recent", and the extra
 * read is one small RPC that usually returns nothing.
 *
 * Several processes may share one file: writes take the write lock first (`BEGIN IMMEDIATE`)
 * and re-read the checkpoint inside, skipping events another process applied meanwhile; the
 * guard's view of a memory is one consistent prefix of the log (id-index/id-index.file.ts says
 * when it needs no transaction for that).
 */
import type { Sequenced, StoredEntry } from '../../../core/index.js';
import { idKey, idOfKey } from '../../../db/encodings.js';
import type { IdIndexFile } from './id-index.file.js';
import { rowOf, writeEvents, type Indexed, type Row } from './id-index.rows.js';
import { kindOfCode } from '../../../db/encodings.js';
import { MAX_ROWS_PER_INSERT } from '../../../db/multi-row-insert.js';
import type { Statements } from './id-index.statements.js';

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

/**
 * The rows of events this process appended and has not written to the file yet: kept in memory
 * at most the file's commit delay (or {@link MAX_ROWS_PER_INSERT} rows), then written in one
 * statement.
 * The guard decides on them and the file together; nothing else reads around them.
 */
interface Tail {
  /** The file's checkpoint seq the tail follows, as this connection knew it. */
  readonly base: number | null;
  readonly rows: Row[];
  /** The entry of each event in the tail (they mark nothing: see {@link IdIndex.appended}). */
  readonly entries: Map<string, StoredEntry>;
}

/** What the index knows of one memory, up to its checkpoint. */
export class IdIndex {
  private key: number | undefined;
  private tail: Tail | undefined;
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

  /** The checkpoint as the file holds it now (with this process's appends written). */
  checkpoint(): Checkpoint {
    this.writeTail();
    return this.file.run('read a checkpoint', () => this.checkpointIn(this.mem()));
  }

  /**
   * The checkpoint and the entries of `ids` (lowercase), read as one snapshot: without a
   * transaction when the checkpoint is known and no other connection commits while the entries
   * are read (then both are one state of the file), else in a read transaction. This process's
   * unwritten appends count: they follow the checkpoint this connection knows, and are written
   * first should another connection have moved it.
   */
  view(ids: ReadonlySet<string>): IndexView {
    const tail = this.tail;
    if (tail !== undefined) {
      const view = this.file.run('read entries', () => {
        const mem = this.mem();
        if (this.file.knownSeq(mem) !== tail.base) return undefined;
        const entries = this.entriesIn(mem, ids, tail.entries);
        return this.file.unchanged() ? { lastSeq: tail.rows.at(-1)!.seq, entries } : undefined;
      });
      if (view !== undefined) return view;
      this.writeTail();
    }
    return this.file.run('read entries', () => {
      const mem = this.mem();
      const known = this.file.knownSeq(mem);
      if (known !== undefined) {
        const entries = this.entriesIn(mem, ids);
        if (this.file.unchanged()) return { lastSeq: known, entries };
      }
      return this.file.run(
        'read entries',
        () => {
          const lastSeq = this.file.checkpointSeq(mem);
          return { lastSeq, entries: this.entriesIn(mem, ids) };
        },
        'read',
      );
    });
  }

  /** The entry of an id (lowercase), without its event. */
  entry(id: string): StoredEntry | undefined {
    this.writeTail();
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
  apply(base: number | null, events: readonly Indexed[]): boolean {
    this.writeTail();
    const mem = this.file.run('register a memory', () => this.mem());
    const applied = this.file.run(
      'apply events',
      () => writeEvents({ sql: this.sql, mem, memoryId: this.memoryId }, base, events),
      'write',
    );
    if (applied === false) return false;
    this.file.committed(mem, applied);
    return true;
  }

  /**
   * Records events this process just appended after `lastSeq` (the server took them there, see
   * eventstoredb.write.ts). They join the memory's tail, written to the file with the appends
   * that follow within its commit delay, when they follow the tail or the checkpoint this
   * connection knows, mark nothing, and no other connection writes to the file; otherwise they
   * are applied at once, as {@link apply} (whose answer this returns).
   */
  appended(lastSeq: number | null, events: readonly Sequenced[]): boolean {
    const rows: Row[] = [];
    for (const event of events) {
      const row = rowOf(event);
      if (row === undefined) return this.apply(lastSeq, events);
      rows.push(row);
    }
    const tail = this.tail;
    const joins =
      rows.length > 0 &&
      (tail !== undefined
        ? tail.rows.at(-1)!.seq === lastSeq
        : this.file.run(
            'read a checkpoint',
            () => this.file.holdsTails() && this.file.knownSeq(this.mem()) === lastSeq,
          ));
    if (!joins) return this.apply(lastSeq, events);
    const held: Tail = tail ?? (this.tail = { base: lastSeq, rows: [], entries: new Map() });
    for (const row of rows) {
      held.rows.push(row);
      held.entries.set(row.id, { kind: row.kind, seq: row.seq, deletedBy: null });
    }
    if (held.rows.length >= MAX_ROWS_PER_INSERT) this.writeTail();
    else this.file.holdTail(this);
    return true;
  }

  /**
   * Writes the tail, if any, as {@link apply} writes events read from the stream. Never throws
   * (the file calls it from a timer): rows it fails to write, or skips because another process
   * reset the memory meanwhile, are derived data the next catch-up reads from the stream again.
   */
  writeTail(): void {
    const tail = this.tail;
    if (tail === undefined) return;
    this.tail = undefined;
    try {
      this.apply(tail.base, tail.rows);
    } catch {
      // The checkpoint this connection knows is still the file's, before the tail: the next
      // append decided on it is refused by the server's expected revision and catches up.
    }
  }

  /**
   * Drops the memory's rows and checkpoint, so the next catch-up rebuilds them from the stream,
   * unless the file's checkpoint is no longer `stale` (another process moved it meanwhile).
   */
  reset(stale: Checkpoint): void {
    this.writeTail();
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
    this.file.committed(this.mem(), undefined);
  }

  /** The memory's integer key, registered on first use. */
  private mem(): number {
    if (this.key !== undefined) return this.key;
    let key = this.sql.memKey.get(this.streamName);
    if (key === undefined) {
      this.file.beforeWrite();
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

  /** The entries of `ids`: from `held` (a tail) when there, else from the file. */
  private entriesIn(
    mem: number,
    ids: ReadonlySet<string>,
    held?: ReadonlyMap<string, StoredEntry>,
  ): Map<string, StoredEntry> {
    const entries = new Map<string, StoredEntry>();
    for (const id of ids) {
      const entry = held?.get(id) ?? this.entryIn(mem, id);
      if (entry !== undefined) entries.set(id, entry);
    }
    return entries;
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
  return { index: new IdIndex(file, file.sql, memoryId, streamName), mutex: new Mutex() };
}
