import type { EventDefaults } from '../core/index.js';
import type { EmbeddingsOptions, Retriever } from '../memory/index.js';
import type { StoreConfig } from '../store/open-store.js';
import type { LogIdentity } from '../tlog/index.js';
import type { MemoryTelemetryOptions } from '../telemetry/index.js';

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
   * Where the read models live for a store that cannot hold them in its own file (EventStoreDB,
   * in-memory): a SQLite file path or `:memory:`. The SQLite store keeps them in its own file.
   * @defaultValue ':memory:'
   */
  readonly readModels?: string;
  /** Open memories kept at most (least recently used close first). @defaultValue 1000 */
  readonly maxOpenMemories?: number;
  /** A memory unused this long closes until its next use. @defaultValue 300000 */
  readonly idleCloseMs?: number;
  /** Retrieval behind the Recall command. @defaultValue BM25, vectors or both, as the mode says */
  readonly retriever?: Retriever;
  /**
   * Semantic and hybrid recall: the embedding model and how recall uses it
   * (`openMemledger`'s `embeddings`). @defaultValue none: recall is lexical
   */
  readonly embeddings?: EmbeddingsOptions;
  /** Recomputations of a recall whose log moved (`openMemledger`'s `recallRetries`). @defaultValue 100 */
  readonly recallRetries?: number;
  /** How long a recall waits for an asynchronous retriever (`retrieverTimeoutMs`). @defaultValue 30000 */
  readonly retrieverTimeoutMs?: number;
  /**
   * Deletes expired content (`retainUntil` passed) by a Deletion requested by
   * `retention-policy`, on an interval. @defaultValue off
   */
  readonly retention?: MemoryRetentionOptions;
  /** Clock and id generator of new events. @defaultValue wall clock, UUID v7 */
  readonly defaults?: EventDefaults;
  /**
   * OpenTelemetry options: spans and metrics are always emitted through `@opentelemetry/api`
   * (no-ops without an SDK); `captureQueries` also puts recall queries on spans.
   * @defaultValue `{ captureQueries: false }`
   */
  readonly telemetry?: MemoryTelemetryOptions;
  /**
   * The verifiable log's name, signing key and witnesses (`logIdentityFromEnv()` reads
   * `MEMLEDGER_LOG_KEY`, `MEMLEDGER_LOG_NAME` and `MEMLEDGER_WITNESSES`).
   * @defaultValue unsigned, named `<host name>/memledger`, no witnesses
   */
  readonly log?: LogIdentity;
}
