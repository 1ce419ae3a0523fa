/**
 * memledger without a framework: `openMemledger({ store })` gives every capability the NestJS
 * module offers (the Nest handlers call this, so nothing is written twice).
 */
import { DEFAULT_MEMORY_ID, type EventDefaults } from '../core/index.js';
import type { MemoryStore } from '../store/event-log.port.js';
import type { SnapshotStore } from '../projections/index.js';
import { MemoryHandle } from './memory-handle.js';
import type { MemorySettings } from './memory.types.js';
import { startReadModels } from './memory-read-models.js';
import { bm25Retriever, type Retriever } from './retriever.js';

/** Options of {@link openMemledger}. */
export interface MemledgerOptions {
  /** The event store (in-memory, SQLite or EventStoreDB). */
  readonly store: MemoryStore;
  /** Where read-model snapshots are kept. @defaultValue none: read models fold from zero on start */
  readonly snapshots?: SnapshotStore;
  /** Snapshot every this many events. @defaultValue 1000 */
  readonly snapshotEvery?: number;
  /** Retrieval behind `recall`. @defaultValue BM25+ over the search projection */
  readonly retriever?: Retriever;
  /** Items a recall returns when the request names no limit. @defaultValue 5 */
  readonly recallLimit?: number;
  /** Recomputations of a recall whose log moved before it could be appended. @defaultValue 10 */
  readonly recallRetries?: number;
  /** Clock and id generator for new events. @defaultValue wall clock, UUID v7 */
  readonly defaults?: EventDefaults;
  /** Whether `close()` also closes the store. @defaultValue true */
  readonly closeStore?: boolean;
}

/** Every memory of one store, with their read models. */
export interface Memledger {
  /** The store's description (kind and location). */
  readonly description: string;
  /** One memory (default `default`); its read models start on first use. */
  memory(memoryId?: string): Promise<MemoryHandle>;
  /** Ids of the memories that hold events. */
  memoryIds(): Promise<string[]>;
  /** The started memories (for sweepers and bridges that act on each). */
  openMemories(): MemoryHandle[];
  /** Calls `listener` for each memory as its read models start (and at once for those started). */
  onMemoryOpened(listener: (memory: MemoryHandle) => void): () => void;
  /** Stops every projection (saving snapshots) and closes the store. */
  close(): Promise<void>;
}

/** Opens memledger over a store. */
export function openMemledger(options: MemledgerOptions): Memledger {
  const { store } = options;
  const started = new Map<string, Promise<MemoryHandle>>();
  const opened = new Map<string, MemoryHandle>();
  const listeners = new Set<(memory: MemoryHandle) => void>();
  const settings: MemorySettings = {
    defaults: options.defaults ?? {},
    retriever: options.retriever ?? bm25Retriever,
    recallLimit: options.recallLimit ?? 5,
    recallRetries: options.recallRetries ?? 10,
  };
  const runnerOptions = {
    ...(options.snapshots ? { snapshots: options.snapshots } : {}),
    ...(options.snapshotEvery ? { snapshotEvery: options.snapshotEvery } : {}),
  };

  const open = (memoryId: string): Promise<MemoryHandle> => {
    const log = store.log(memoryId);
    let handle = started.get(log.memoryId);
    if (!handle) {
      handle = startReadModels(log, runnerOptions).then((models) => {
        const memory = new MemoryHandle(log.memoryId, log, models, settings);
        opened.set(log.memoryId, memory);
        for (const listener of listeners) listener(memory);
        return memory;
      });
      // A failed start (store unavailable) must not stick: the next call tries again.
      handle.catch(() => started.delete(log.memoryId));
      started.set(log.memoryId, handle);
    }
    return handle;
  };

  return {
    description: store.description,
    memory: async (memoryId = DEFAULT_MEMORY_ID) => open(memoryId),
    memoryIds: () => store.memoryIds(),
    openMemories: () => [...opened.values()],
    onMemoryOpened(listener) {
      listeners.add(listener);
      for (const memory of opened.values()) listener(memory);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.allSettled(started.values());
      for (const memory of opened.values()) await memory.stop();
      if (options.closeStore !== false) await store.close();
    },
  };
}
