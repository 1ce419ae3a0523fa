/** The projection runtime's interface (projection-runtime.ts has the how). */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../core/index.js';
import type { EmbeddedDatabase, MemoryStore } from '../store/event-log.port.js';
import type { Projection, ProjectionHandler } from '../store/projection.port.js';
import type { AppliedListener } from './applied-listeners.js';

/** Reports catch-up progress (for `memledger rebuild`): events applied of the log's total. */
export type Progress = (applied: number, total: number) => void;

/** Options of {@link ProjectionRuntime.advance}. */
export interface AdvanceOptions {
  /**
   * The projections the caller needs current (by name): the log is read from the lowest of
   * their checkpoints and applied to them alone; the others follow on an advance that needs
   * them (a state page never waits for the verifiable log's tree to be built).
   * @defaultValue all
   */
  readonly needed?: readonly string[];
  /**
   * A head the caller has just read itself (a store's append turn): the needed checkpoints reach
   * at least it, even when a catch-up already running stops short of it; when they stand there
   * already (and were checked against the log in this process), nothing is read.
   */
  readonly head?: number;
  /**
   * With `head`: the events the caller read on its way there (contiguous, in seq order, ending
   * at `head`; possibly starting later than needed). When they cover what the needed
   * projections lack and those read no stored form, they are applied without reading the log.
   */
  readonly read?: readonly Sequenced[];
  readonly progress?: Progress;
}

/** What the runtime reads of the store: logs, and which memories hold events (for builds). */
export type RuntimeStore = Pick<MemoryStore, 'log' | 'memoryIds'>;

/** A projection's layout being built beside the serving one (for the log and `/metrics`). */
export interface LayoutBuildProgress {
  readonly projection: string;
  /** The serving layout's version. */
  readonly from: number;
  /** The version being built. */
  readonly to: number;
  /** Events applied to it and events to apply, over every memory, as last counted. */
  readonly applied: number;
  readonly total: number;
  /** Whether it caught up and serves now (kept listed, so a gauge of it goes to zero). */
  readonly switched: boolean;
}

/** What the store that holds the projections' file lends them (SQLite: its embedded database). */
export type InlineSource = Pick<EmbeddedDatabase, 'onAppend' | 'projectedRange'>;

/** The projections of one file (see the module comment). */
export interface ProjectionRuntime {
  /** The connection the projections' tables live on (for their queries). */
  readonly db: Database.Database;
  /** Where they live, for messages. */
  readonly location: string;
  /**
   * Registers a projection before first use. Tables of its `previous` layout go on serving while
   * its own are built beside them in the background; tables of another layout are dropped.
   */
  register(projection: Projection): void;
  /**
   * Applies everything the memory's log holds now to every registered projection (or those
   * `needed`); resolves with the lowest of their checkpoints, the log's head then or later (-1:
   * an empty log). Concurrent calls for one memory and the same projections share one catch-up.
   */
  advance(memoryId: string, options?: AdvanceOptions): Promise<number>;
  /**
   * `advance` up to `head`, synchronously, inside the transaction of the store that holds the
   * file (its write lock held): false, applying nothing, when the memory was not advanced in
   * this process yet, is more than a chunk behind, or the file is not the store's.
   */
  advanceWithin(memoryId: string, head: number, needed?: readonly string[]): boolean;
  /**
   * A writer's own just-appended events, on a store without inline hooks: applied at once to
   * each inline projection that stood right before them and reads no stored form (the others
   * follow on the next advance). A no-op where the append's own transaction applied them.
   */
  applyAppended(memoryId: string, written: readonly Sequenced[]): void;
  /** Drops every projection's rows of one memory and applies its whole log again. */
  rebuild(memoryId: string, progress?: Progress): Promise<number>;
  /**
   * A registered projection's serving handler, by name, for its queries: ask for it per query,
   * as a layout built beside it replaces it once caught up.
   */
  handler<H extends ProjectionHandler>(name: string): H | undefined;
  /** The layouts built beside serving ones in this process, and how far they got. */
  layoutBuilds(): LayoutBuildProgress[];
  /** Stops the layout builds (each resumes when the file is next opened); before closing it. */
  close(): void;
  /**
   * Calls `listener` with the events a projection applied to one memory, in seq order, once they
   * are committed (by any of the three ways); returns its remover.
   */
  onApplied(projection: string, memoryId: string, listener: AppliedListener): () => void;
}
