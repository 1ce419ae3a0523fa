/**
 * The store port: a per-memory, append-only event log. Every adapter (in-memory, SQLite,
 * EventStoreDB) implements it and passes the one contract suite in test/store-contract.
 */
import type Database from 'better-sqlite3';
import type { MemoryEvent, Sequenced } from '../core/index.js';
import type { WalScrubber } from '../db/wal-scrub.js';
import type { CheckpointArchive } from './checkpoint-archive.port.js';
import type { ContentCodec } from './content-codec.js';
import type { ProjectedEvent } from './projection.port.js';

/** Options of {@link EventLog.append}. */
export interface AppendOptions {
  /**
   * The seq the log must be at for the append to happen: a number, `null` for "the log must be
   * empty". A mismatch throws `EXPECTED_SEQ_MISMATCH` and writes nothing.
   * @defaultValue no expectation
   */
  readonly expectedLastSeq?: number | null;
}

/** Options of {@link EventLog.read}. */
export interface ReadOptions {
  /** First seq to include (forwards: the lowest; backwards: the highest). @defaultValue the log's start (forwards) or end (backwards) */
  readonly fromSeq?: number;
  /** Last seq to include, inclusive. @defaultValue the log's end (forwards) or start (backwards) */
  readonly toSeq?: number;
  /** @defaultValue 'forwards' */
  readonly direction?: 'forwards' | 'backwards';
  /** At most this many events. @defaultValue no limit */
  readonly limit?: number;
  /**
   * Decode stored events without validating them again (upcast only): for catch-ups and
   * rebuilds of derived data, over events this code validated when it appended them. Reads that
   * answer a caller, `memledger verify` and imports validate every event. @defaultValue false
   */
  readonly trusted?: boolean;
}

/** Options of {@link EventLog.subscribe}. */
export interface SubscribeOptions {
  /** First seq to deliver. @defaultValue 0 */
  readonly fromSeq?: number;
  /** Ends the subscription (the iterator returns). */
  readonly signal?: AbortSignal;
}

/** One memory's log. */
export interface EventLog {
  /** The memory this log belongs to. */
  readonly memoryId: string;
  /**
   * Appends events atomically (all or none) after running the append guard, and returns the
   * stored, sequenced events in the order given. Already stored events (same id, same content)
   * are returned as stored and not written again.
   */
  append(events: readonly MemoryEvent[], options?: AppendOptions): Promise<readonly Sequenced[]>;
  /** Reads a range of the log in seq order (or reverse order). */
  read(options?: ReadOptions): AsyncIterable<Sequenced>;
  /**
   * Reads a range forwards as projections receive it: each event as reads return it and in the
   * form the store keeps (its schema version and stored fields, sealed words sealed), which the
   * verifiable log's leaves bind (src/store/projection.port.ts).
   */
  readProjected(options?: Omit<ReadOptions, 'direction'>): AsyncIterable<ProjectedEvent>;
  /** One event by id, deleted content included; `undefined` when the id is not in this memory. */
  get(id: string): Promise<Sequenced | undefined>;
  /** The seq of the last event, `null` for an empty log. */
  lastSeq(): Promise<number | null>;
  /**
   * Catches up from `fromSeq`, then delivers each new event as it is appended: in seq order,
   * with no gap and no duplicate, until the signal aborts or the store closes.
   */
  subscribe(options?: SubscribeOptions): AsyncIterable<Sequenced>;
  /**
   * Optional (the SQLite store): computes events from the log's head and appends them under
   * the store's write lock, so nothing — another process included — can move the log between
   * the computation and the append. `compute` runs synchronously inside the lock, is given the
   * head, and must not append itself; returning `undefined` appends nothing (resolves
   * `undefined`). Recall uses it to keep invariant 8 without retries.
   */
  appendComputed?(
    compute: (lastSeq: number | null) => readonly MemoryEvent[] | undefined,
  ): Promise<readonly Sequenced[] | undefined>;
  /**
   * Optional (the EventStoreDB store, where no write lock spans processes): computes events at
   * the head and appends them expecting it, with this process's own appends of the memory held
   * back meanwhile. `compute` is given the head the store just read and the events it read on
   * the way there (the latest ones, in seq order, contiguous, ending at the head; possibly
   * none, or starting later than the caller needs), so the caller can bring its own state to
   * that head without reading again. It may be async, and must not append itself. If another
   * process moved the log before the append, the store reads on and calls `compute` again, up
   * to `attempts` times, then throws `APPEND_CONFLICT`; returning `undefined` appends nothing
   * (resolves `undefined`). Recall uses it where `appendComputed` is missing: only other
   * processes can then make it compute again.
   */
  appendAtHead?(
    compute: (
      lastSeq: number | null,
      read: readonly Sequenced[],
    ) => Promise<readonly MemoryEvent[] | undefined>,
    attempts: number,
  ): Promise<readonly Sequenced[] | undefined>;
}

/** A store holding any number of memories, each its own log. */
export interface MemoryStore {
  /** Human-readable store kind and location, for start-up logs (never credentials). */
  readonly description: string;
  /** The log of one memory; an invalid memory id throws `INVALID_MEMORY_ID`. */
  log(memoryId?: string): EventLog;
  /** Ids of the memories that hold at least one event. */
  memoryIds(): Promise<string[]>;
  /**
   * Whether any stored message or document holds its words sealed: asked when a key store is
   * about to be created, which must not happen for a log whose keys already exist elsewhere.
   * Absent on a store that cannot answer it without reading every memory (EventStoreDB).
   */
  holdsSealedContent?(): Promise<boolean>;
  /** Releases connections and ends open subscriptions. Idempotent. */
  close(): Promise<void>;
  /**
   * Present on an adapter opened without a content codec: the same store (its connection, its
   * files) with `codec` applied where it encodes and decodes events, so its guard and rows keep
   * the encoded form while reads and projections see plain events. This store is not used again.
   */
  withCodec?(codec: ContentCodec): MemoryStore;
  /**
   * Present on a store whose own database can hold the read models (SQLite): they are then
   * written in the same transaction as each append, so a writer reads its own writes at once.
   */
  readonly embedded?: EmbeddedDatabase;
  /**
   * Present on a store that keeps the verifiable log's signed checkpoints itself (EventStoreDB:
   * a companion stream per memory). Otherwise they go into the embedded database (SQLite) or,
   * for a store with neither, process memory.
   */
  readonly checkpoints?: CheckpointArchive;
}

/**
 * Called inside an append's transaction, after the guard decided and the events were inserted,
 * with each written event as projections receive it.
 */
export type AppendHook = (memoryId: string, written: readonly ProjectedEvent[]) => void;

/** A store database that read models may share (see {@link MemoryStore.embedded}). */
export interface EmbeddedDatabase {
  /** The store's connection; read-model tables live beside the log's. */
  readonly database: Database.Database;
  /** The file's path (`:memory:` for none). */
  readonly path: string;
  /** The scrubs of the file's write-ahead log after an erasure (src/db/wal-scrub.ts). */
  readonly wal: WalScrubber;
  /**
   * Registers the hook every append runs inside its transaction. A hook that throws rolls back
   * its own writes only (each runs in a savepoint of its own): projections never make an append
   * fail, nor one another's writes roll back.
   */
  onAppend(hook: AppendHook): void;
  /**
   * Events `fromSeq..toSeq` of one memory as projections receive them, read on the store's
   * connection at once (inside the caller's transaction, trusted: this store validated them when
   * it appended them). The projection runtime catches up with it where it must not wait: inside
   * an append's own transaction.
   */
  projectedRange(memoryId: string, fromSeq: number, toSeq: number): ProjectedEvent[];
  /** Events of one memory by seq, read on the store's connection; absent seqs are left out. */
  eventsAt(memoryId: string, seqs: readonly number[]): Map<number, Sequenced>;
  /**
   * The seq of each of `ids` the log of one memory holds (absent ids are left out), found on
   * the log's own id index: read models in the same file keep no second index by id.
   */
  seqsOf(memoryId: string, ids: readonly string[]): Map<string, number>;
}
