import type { EventDefaults } from '../core/index.js';
import type { Retriever } from '../memory/index.js';
import type { SnapshotStore } from '../projections/index.js';
import type { StoreConfig } from '../store/open-store.js';

/** Options of the opt-in retention sweeper. */
export interface MemoryRetentionOptions {
  /** How often to sweep every memory for content whose `retainUntil` has passed. @defaultValue 60000 */
  readonly everyMs?: number;
  /** The clock the sweeper compares `retainUntil` with. @defaultValue the wall clock */
  readonly now?: () => Date;
}

/** Options of `MemoryModule.forRoot` / `forRootAsync`. */
export interface MemoryModuleOptions {
  /**
   * Which event store to open: `{ kind: 'in-memory' }`, `{ kind: 'sqlite', path }`,
   * `{ kind: 'eventstoredb', connectionString }` or `{ kind: 'existing', store }`.
   * The module closes it on shutdown (an `existing` store too).
   */
  readonly store: StoreConfig;
  /** The memory a command or query addresses when its `memoryId` is undefined. @defaultValue 'default' */
  readonly defaultMemoryId?: string;
  /** Items a recall returns when the request names no limit. @defaultValue 5 */
  readonly recallLimit?: number;
  /**
   * Where read-model snapshots are kept: a folder (`{ dir }`, one JSON file per memory) or any
   * `SnapshotStore`. @defaultValue none: read models fold the log from zero on start
   */
  readonly snapshots?: { readonly dir: string } | SnapshotStore;
  /** Snapshot the read models every this many applied events. @defaultValue 1000 */
  readonly snapshotEvery?: number;
  /** Retrieval behind the Recall command. @defaultValue BM25+ over the search projection */
  readonly retriever?: Retriever;
  /**
   * Deletes expired content (`retainUntil` passed) by a Deletion requested by
   * `retention-policy`, on an interval. @defaultValue off
   */
  readonly retention?: MemoryRetentionOptions;
  /** Clock and id generator of new events. @defaultValue wall clock, UUID v7 */
  readonly defaults?: EventDefaults;
}
