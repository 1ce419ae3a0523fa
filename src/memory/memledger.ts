/**
 * memledger without a framework: `openMemledger({ store })` gives every capability the NestJS
 * module offers (the Nest handlers call this, so nothing is written twice).
 *
 * Memories open lazily, on first use, and close again when idle or when more than
 * `maxOpenMemories` are open: an open memory holds only a few small objects (its read models
 * are on disk), so thousands cost next to nothing, and no timer runs per memory.
 */
import { DEFAULT_MEMORY_ID, type EventDefaults } from '../core/index.js';
import {
  MemoryReadModel,
  openEmbeddedReadModels,
  openReadModelFile,
  readModelProjections,
  registerReadModels,
  type ReadModelDb,
  type ReadModelLayoutCode,
} from '../read-models/index.js';
import type { KeyStore } from '../keys/index.js';
import type { VersionProgress } from '../vectors/index.js';
import { openProjectionRuntime, type ProjectionRuntime } from '../projections/index.js';
import { treeProjection } from '../projections/tree/index.js';
import type { CheckpointArchive } from '../store/checkpoint-archive.port.js';
import type { MemoryStore } from '../store/event-log.port.js';
import { inMemoryCheckpointArchive } from '../store/in-memory/in-memory.checkpoint-archive.js';
import { sqliteCheckpointArchive } from '../store/sqlite/sqlite.checkpoint-archive.js';
import { WitnessClient, defaultLogName, type LogIdentity } from '../tlog/index.js';
import type { CleanupOnOpen, ErasureCleanup } from '../store/sealed/erasure-cleanup.js';
import { sealedStore, type SealedMemoryStore } from '../store/sealed/sealed-store.js';
import { MemoryHandle } from './memory-handle.js';
import type { MemorySettings } from './memory.types.js';
import { standardRetriever, type Retriever } from './retriever.js';
import { openSemantic, type EmbeddingsOptions } from './semantic-options.js';
import { VerifiableLog } from './verifiable-log.js';

/** Options of {@link openMemledger}. */
export interface MemledgerOptions {
  /** The event store (in-memory, SQLite or EventStoreDB). */
  readonly store: MemoryStore;
  /**
   * A key store: content is then sealed at rest with a key per item, and can be erased (an
   * Erasure destroys the key). The memledger owns it from then on and closes it. Without one,
   * content is stored in plain text: it can be deleted, not erased (`ERASURE_UNAVAILABLE`).
   * @defaultValue none (a store opened by `openStore` with `keys` is sealed already)
   */
  readonly keys?: KeyStore;
  /**
   * Where the read models live when the store cannot hold them in its own file (every store but
   * SQLite): a SQLite file path, or `:memory:`. Derived data: deleting the file costs a rebuild.
   * @defaultValue ':memory:'
   */
  readonly readModels?: string;
  /**
   * The code of the read models' layout (and of the one before it, kept while a file of that
   * layout is upgraded). @defaultValue this release's, `READ_MODEL_LAYOUT`; the upgrade tests
   * open a file with a layout to come
   */
  readonly readModelLayout?: ReadModelLayoutCode;
  /**
   * Retrieval behind `recall`. @defaultValue BM25 over the search read model, vectors, or both
   * fused, as the request's mode says
   */
  readonly retriever?: Retriever;
  /**
   * Semantic and hybrid recall: the embedding model and how recall uses it (a vector index is
   * built beside the read models, off the append path). @defaultValue none: recall is lexical
   */
  readonly embeddings?: EmbeddingsOptions;
  /** Items a recall returns when the request names no limit. @defaultValue 5 */
  readonly recallLimit?: number;
  /**
   * Recomputations of a recall whose log moved before it could be appended. With SQLite a
   * recall is computed under the write lock and never moves; with EventStoreDB only another
   * process's appends can move it (the recall is computed in this process's append turn). Two
   * instances writing one memory at full speed make some recalls compute again many times in a
   * row (`npm run faults -- --only shared-esdb`: tens of times, once over 100), so the budget is
   * generous; a recall that uses it up answers `APPEND_CONFLICT` and writes nothing.
   * @defaultValue 100
   */
  readonly recallRetries?: number;
  /**
   * How long a recall waits for an asynchronous retriever before it fails with
   * `RETRIEVER_TIMEOUT`, appending nothing. On EventStoreDB the retriever runs in the memory's
   * append turn, so this also bounds how long a slow retriever holds back this process's
   * appends to that memory; and a retriever that appends to the memory it retrieves for, which
   * waits for that very turn, fails the recall after this long instead of hanging it.
   * @defaultValue 30000
   */
  readonly retrieverTimeoutMs?: number;
  /** Clock and id generator for new events. @defaultValue wall clock, UUID v7 */
  readonly defaults?: EventDefaults;
  /** Open memories kept at most; the least recently used closes first. @defaultValue 1000 */
  readonly maxOpenMemories?: number;
  /** A memory unused for this long closes (it reopens on next use). @defaultValue 300000 */
  readonly idleCloseMs?: number;
  /** Whether `close()` also closes the store. @defaultValue true */
  readonly closeStore?: boolean;
  /**
   * Where notices go that an operator should see but that are no error: e.g. that the files
   * were scrubbed on open because an erasure's clean-up had not run before a crash.
   * @defaultValue `console.warn`
   */
  readonly onNotice?: (notice: string) => void;
  /**
   * The verifiable log's identity: its name, the key that signs checkpoints and the witnesses
   * that cosign them (`logIdentityFromEnv()` reads `MEMLEDGER_LOG_KEY`, `MEMLEDGER_LOG_NAME` and
   * `MEMLEDGER_WITNESSES`). Without a signer, roots and proofs are served unsigned.
   * @defaultValue unsigned, named `<host name>/memledger`, no witnesses
   */
  readonly log?: LogIdentity;
}

/** Every memory of one store, with their read models. */
export interface Memledger {
  /** The store's description (kind and location). */
  readonly description: string;
  /** Where the read models live. */
  readonly readModels: string;
  /** One memory (default `default`), opened on first use. */
  memory(memoryId?: string): Promise<MemoryHandle>;
  /** Ids of the memories that hold events. */
  memoryIds(): Promise<string[]>;
  /** The memories open now (for sweepers and bridges that act on each). */
  openMemories(): MemoryHandle[];
  /** Calls `listener` for each memory as it opens (and at once for those open now). */
  onMemoryOpened(listener: (memory: MemoryHandle) => void): () => void;
  /**
   * The erasures' clean-up (pending scrubs, their backlog), on a store whose content is sealed;
   * undefined on one that cannot erase.
   */
  readonly erasureCleanup: ErasureCleanup | undefined;
  /** Checkpoints and proofs of every memory (each memory handle offers its own). */
  readonly verifiableLog: VerifiableLog;
  /**
   * The vector index's progress per model version (for logs and `/metrics`), and a promise of
   * the background follower's idleness; undefined without an embedder.
   */
  readonly vectors: VectorsView | undefined;
  /**
   * The projection runtime (src/store/projection.port.ts): derived data registered here is
   * applied inside each append's transaction (SQLite) or by catch-up from the log, in the read
   * models' file.
   */
  readonly projections: ProjectionRuntime;
  /** Closes every memory and the read models, and closes the store. */
  close(): Promise<void>;
}

/** What the application sees of the vector index. */
export interface VectorsView {
  /** Each version's model, memories, memories caught up, and content items not embedded yet. */
  progress(): VersionProgress[];
  /** Resolves once the background follower has nothing due (or is off). */
  idle(): Promise<void>;
}

interface OpenMemory {
  readonly handle: MemoryHandle;
  lastUsed: number;
}

/** Opens memledger over a store. */
export function openMemledger(options: MemledgerOptions): Memledger {
  const store = options.keys ? sealedStore(options.store, options.keys) : options.store;
  const sealed = store as Partial<SealedMemoryStore>;
  const db: ReadModelDb = store.embedded
    ? openEmbeddedReadModels(store.embedded)
    : openReadModelFile(options.readModels ?? ':memory:');
  const notice = options.onNotice ?? ((text: string) => console.warn(text));
  const projections = openProjectionRuntime(
    db.database,
    db.location,
    store,
    store.embedded,
    notice,
  );
  registerReadModels(projections, db, readModelProjections(db, options.readModelLayout));
  const cleanup = sealed.cleanup;
  // The read models' own file holds words too (search, event copies): scrubbed with the others.
  if (cleanup && !db.embedded) cleanup.watch(db.wal);
  const ready = (sealed.ready ?? Promise.resolve(undefined)).then((found) => {
    // Frames alone are an ordinary unclean stop (or a new file): scrubbed quietly.
    if (found && found.leftPending > 0) notice(cleanupNotice(store.description, found));
  });
  const open = new Map<string, OpenMemory>();
  const listeners = new Set<(memory: MemoryHandle) => void>();
  const semantic = options.embeddings && openSemantic(db, projections, options.embeddings, notice);
  projections.register(treeProjection);
  const identity = options.log ?? { name: defaultLogName(), witnesses: [] };
  const verifiableLog = new VerifiableLog(identity, projections, archiveOf(store), {
    ...(identity.witnesses.length > 0 ? { witnesses: new WitnessClient(identity.witnesses) } : {}),
    onNotice: notice,
  });
  const settings: MemorySettings = {
    defaults: options.defaults ?? {},
    retriever: options.retriever ?? standardRetriever,
    recallLimit: options.recallLimit ?? 5,
    recallRetries: options.recallRetries ?? 100,
    retrieverTimeoutMs: options.retrieverTimeoutMs ?? 30_000,
    cleanup,
    semantic,
    verifiableLog,
    projections,
  };
  const maxOpen = Math.max(1, options.maxOpenMemories ?? 1000);
  const idleMs = Math.max(1, options.idleCloseMs ?? 300_000);

  const closeMemory = (memoryId: string) => {
    const found = open.get(memoryId);
    open.delete(memoryId);
    void found?.handle.stop();
  };
  // One sweep for every memory, not a timer each; unref'd so it never keeps a process alive.
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [memoryId, memory] of open) if (memory.lastUsed < cutoff) closeMemory(memoryId);
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  const memory = (memoryId: string): MemoryHandle => {
    const log = store.log(memoryId);
    const found = open.get(log.memoryId);
    if (found) {
      found.lastUsed = Date.now();
      // Map order is the LRU order: most recently used last.
      open.delete(log.memoryId);
      open.set(log.memoryId, found);
      return found.handle;
    }
    const handle = new MemoryHandle(
      log.memoryId,
      log,
      new MemoryReadModel(db, log, projections),
      settings,
    );
    open.set(log.memoryId, { handle, lastUsed: Date.now() });
    while (open.size > maxOpen) closeMemory(open.keys().next().value!);
    for (const listener of listeners) listener(handle);
    return handle;
  };

  return {
    description: store.description,
    readModels: db.location,
    erasureCleanup: cleanup,
    vectors: semantic && {
      progress: () => semantic.index.progress(),
      idle: async () => semantic.follower?.idle(),
    },
    verifiableLog,
    projections,
    memory: async (memoryId = DEFAULT_MEMORY_ID) => {
      await ready;
      return memory(memoryId);
    },
    memoryIds: () => store.memoryIds(),
    openMemories: () => [...open.values()].map((m) => m.handle),
    onMemoryOpened(listener) {
      listeners.add(listener);
      for (const m of open.values()) listener(m.handle);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(sweeper);
      projections.close();
      semantic?.follower?.stop();
      for (const memoryId of [...open.keys()]) closeMemory(memoryId);
      if (options.closeStore !== false) await store.close();
      db.close();
    },
  };
}

/** Where signed checkpoints are kept: the store's own archive, its file, else process memory. */
function archiveOf(store: MemoryStore): CheckpointArchive {
  if (store.checkpoints) return store.checkpoints;
  return store.embedded
    ? sqliteCheckpointArchive(store.embedded.database)
    : inMemoryCheckpointArchive();
}

/** What the scrub on open did, in one line for the operator's log. */
function cleanupNotice(store: string, found: CleanupOnOpen): string {
  const why = `${found.leftPending} erasure clean-up(s) left pending by a process that stopped`;
  const outcome =
    found.status.state === 'done'
      ? 'scrubbed them before serving'
      : `could not scrub them yet (${found.status.reason}); retrying until it completes`;
  return `memledger: ${store}: found ${why}; ${outcome}.`;
}
