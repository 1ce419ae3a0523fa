/**
 * The projection port (docs/architecture.md, "Derived data"): everything computed from
 * events — visible state, totals, recall uses, the item index, search, the verifiable log's
 * tree, vectors — is a projection. A projection declares its tables and layout version and is
 * given events to apply inside a transaction it does not own:
 *
 * - on SQLite, inside each append's own transaction, in the store's file (a writer reads its own
 *   writes, and a crash never applies an event twice or skips one);
 * - on EventStoreDB and in memory, from the checkpointed catch-up of the log, in a local
 *   projection file.
 *
 * The same events give the same rows everywhere. A projection never reads the log itself: it is
 * handed each event twice over, as reads return it and as the store keeps it (the verifiable
 * log binds the stored form; search indexes the words).
 */
import type Database from 'better-sqlite3';
import type { EventKind, Sequenced } from '../core/index.js';

/** What a store keeps of an event: the form the verifiable log's leaf binds. */
export interface StoredForm {
  /** The wire type: `Message`, `Document`, `Recall`, `Deletion` or `Erasure`. */
  readonly type: string;
  /** The schema version it was written in (1: memledger 0.1.0, which recorded none). */
  readonly version: number;
  /** Its fields as stored, without `seq`, `id` and `kind`: nothing upcast, sealed words sealed. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** One event as projections receive it. */
export interface ProjectedEvent {
  /** As reads return it: upcast to the current shape, words opened (or the erasure marker). */
  readonly event: Sequenced;
  /** As the store keeps it. */
  readonly stored: StoredForm;
}

/** What a projection is given when its file opens. */
export interface ProjectionContext {
  /** The connection its tables live on: the store's own file, or a local projection file. */
  readonly db: Database.Database;
  /**
   * The memory's integer key in this file (for compact row keys), created on first use: call it
   * where the projection writes (inside `apply`).
   */
  memoryKey(memoryId: string): number;
  /** The memory's key if it has one, without creating it (reads write nothing). */
  existingKey(memoryId: string): number | undefined;
  /**
   * The name one of the projection's `tables` has in the layout this handler reads and writes:
   * the name itself, or the name with a suffix for a layout built beside another. A projection
   * that declares a `previous` layout names every table through it (both layouts' code). The
   * runtime always gives it; a context made to read a file outside the runtime may leave it out
   * (names are then the tables' own).
   */
  table?(name: string): string;
}

/** Derived data computed from every event of every memory of a store. */
export interface Projection {
  /** Unique among the projections of a file. */
  readonly name: string;
  /**
   * The layout version of its tables: a file holding another version has them dropped and
   * rebuilt from the log before it serves, unless that version is `previous`'s.
   */
  readonly version: number;
  /** Its tables, views and indexes, by name: what a version change drops. */
  readonly tables: readonly string[];
  /**
   * The projection of the layout before this one (same name, older version), kept so a file
   * holding that layout goes on answering from it: this layout is then built beside it, from
   * the log, in the background, and switched to once caught up (src/projections/layout-upgrade.ts).
   * Both name their tables through {@link ProjectionContext.table}.
   */
  readonly previous?: Projection;
  /**
   * Projections whose tables of the same layout this one's queries read (search joins the read
   * models' item index): a layout built beside switches only together with theirs being built,
   * in one transaction, so no query joins tables of two layouts.
   */
  readonly switchesWith?: readonly string[];
  /**
   * Whether it is applied inside each append's transaction where the store holds its file
   * (SQLite). A projection that is not (`false`: search, whose tokenising must never lengthen an
   * append) is advanced only by the runtime's `advance`, which its queries call first.
   * @defaultValue true
   */
  readonly inline?: boolean;
  /**
   * Whether `apply` reads {@link ProjectedEvent.stored}. One that does not (`false`) is also
   * handed a writer's own just-appended events on a store without inline hooks, where their
   * stored form is not on hand; the others follow those by catch-up. @defaultValue true
   */
  readonly readsStoredForm?: boolean;
  /**
   * The kinds of event that can give it work, when not all can. An append holding none of them
   * is not handed to it (inline, or as a writer's own append), and its checkpoint is not asked,
   * so its handler's `checkpoint` must report past such events by itself (the vector windows over
   * everything but deletions and erasures). Catch-ups hand it every event.
   * @defaultValue every kind
   */
  readonly handles?: readonly EventKind[];
  /** Creates its tables when missing and prepares its statements. */
  open(context: ProjectionContext): ProjectionHandler;
}

/**
 * The events of `events` (contiguous, in seq order) past `checkpoint`: all of them, a suffix, or
 * none when they end at or before it, or start further than right after it (a gap).
 */
export function eventsAfter(
  events: readonly ProjectedEvent[],
  checkpoint: number,
): readonly ProjectedEvent[] {
  const first = events[0];
  if (first === undefined) return events;
  const skip = checkpoint + 1 - first.event.seq;
  if (skip < 0 || skip >= events.length) return [];
  return skip === 0 ? events : events.slice(skip);
}

/** A projection open on one file. */
export interface ProjectionHandler {
  /**
   * The last seq of the memory it has applied (-1: none). Applying events advances it in the
   * same transaction, so it is never ahead of what the projection holds. A projection that
   * knows the events past it give it nothing to do may report past them (search, over events
   * that are not content).
   */
  checkpoint(memoryId: string): number;
  /**
   * Applies the next events of one memory: contiguous, in seq order, starting right after the
   * checkpoint, inside the caller's transaction (it must not commit or begin one).
   */
  apply(memoryId: string, events: readonly ProjectedEvent[]): void;
  /**
   * `apply` for a handler that finds its own place, with the read it makes anyway (the read
   * models read their last row for its running totals): applies those of `events` (contiguous,
   * in seq order) past its checkpoint and returns them; applies nothing and returns none when the
   * first of them is further than right after it (a gap, left to catch-up). Where a handler has
   * it, the runtime calls it instead of asking `checkpoint` first: one read fewer per append.
   */
  applyNext?(memoryId: string, events: readonly ProjectedEvent[]): readonly ProjectedEvent[];
  /** Drops every row of one memory (a rebuild from the log follows). */
  reset(memoryId: string): void;
  /**
   * Whether what it holds at its checkpoint was made from `atCheckpoint`, the event the log
   * holds there now. Asked once per memory and process before catching up: a projection made
   * from another log (a file restored from elsewhere, a stream written anew) is reset and
   * rebuilt. @defaultValue always true
   */
  agrees?(memoryId: string, atCheckpoint: ProjectedEvent): boolean;
}
