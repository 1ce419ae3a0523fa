/**
 * The vector index of one read-model file: a projection of the log's content into sqlite-vec
 * `vec0` tables (vector-layout.ts), exact as of any seq, following the read models under a
 * checkpoint of its own. What needs no model (deletions, erasures) is a projection on the read
 * models' runtime (vector-sync.ts); embedding follows in batches off the append path, under the
 * index's own checkpoint (vector-catch-up.ts).
 *
 * A model change is a new version built beside the old one: until the new version has caught
 * up with a memory once, the previous model serves that memory when the application still
 * configures it (`previous`), and recall is lexical otherwise. Versions neither configured nor
 * still needed are dropped once the current one has caught up with every memory.
 */
import { createRequire } from 'node:module';
import type * as SqliteVec from 'sqlite-vec';
import type { VectorSearchRecord } from '../core/index.js';
import { passiveCheckpoint } from '../db/wal-scrub.js';
import type { Embedder } from '../embeddings/index.js';
import { DEFAULT_MAX_CHARS } from './item-text.js';
import { prepareItemWindows, type ItemWindows } from './item-windows.js';
import { embedNextBatch, type BatchOutcome } from './vector-catch-up.js';
import type { VectorContext } from './vector-context.js';
import {
  checkedQuantization,
  dropVectorVersion,
  ensureVectorTables,
  registeredVersions,
  vectorVersion,
  type VectorVersion,
} from './vector-layout.js';
import { VectorMemories } from './vector-memories.js';
import {
  prepareProgressTable,
  versionProgress,
  type ProgressTable,
  type VersionProgress,
} from './vector-progress.js';
import {
  searchRecordOf,
  searchVectors,
  type VectorHit,
  type VectorSearchOptions,
} from './vector-search.js';
import { resetVectors, syncWindows, windowsAgree, windowsCheckpoint } from './vector-sync.js';
import { prepareVectorTable, type VectorTable } from './vector-table.js';
import type { Serving, VectorIndexOptions, VectorLag, VectorSource } from './vector-index.types.js';

export type { Serving, VectorIndexOptions, VectorLag, VectorSource };

/** SQLite's default upper bound of `mmap_size` (SQLITE_MAX_MMAP_SIZE). */
const MAX_MMAP = 0x7fff0000;

/** The vector index of one read-model file. */
export class VectorIndex {
  private readonly running = new Map<number, Promise<unknown>>();
  private readonly context: VectorContext;
  private readonly memories: VectorMemories;
  private readonly batchSize: number;
  private readonly maxChars: number;

  private constructor(
    private readonly source: VectorSource,
    private readonly options: VectorIndexOptions,
    readonly windows: ItemWindows,
    private readonly progressTable: ProgressTable,
    readonly current: VectorTable,
    private readonly previous: VectorTable | undefined,
    private readonly tables: VectorTable[],
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
    this.memories = new VectorMemories(source.db, windows);
    this.context = {
      db: source.db,
      windows,
      progress: progressTable,
      tables: this.tables,
      vmemOf: (mem, create) => this.memories.vmemOf(mem, create),
      events: (mem, memoryId, seqs) => source.events(mem, memoryId, seqs),
      scrub: () => source.scrub(),
    };
  }

  /** Loads sqlite-vec into the file's connection and opens (or creates) the model's version. */
  static open(source: VectorSource, options: VectorIndexOptions): VectorIndex {
    const quantization = checkedQuantization(options.quantization);
    const { db } = source;
    loadSqliteVec(db);
    const mmap = options.mmapBytes ?? MAX_MMAP;
    if (mmap > (db.pragma('mmap_size', { simple: true }) as number))
      db.pragma(`mmap_size = ${Math.floor(mmap)}`);
    const versionOf = ({ model, dimensions }: Embedder) =>
      vectorVersion(model, dimensions, quantization, options.cells ?? 0);
    const current = versionOf(options.embedder);
    ensureVectorTables(db, current);
    const previous = options.previous ? versionOf(options.previous) : undefined;
    if (previous) ensureVectorTables(db, previous);
    // The versions of one model differ only in how they store its vectors: one copies another's.
    const ordered: VectorTable[] = [];
    const tables = registeredVersions(db).map((version) =>
      prepareVectorTable(db, version, () => ordered),
    );
    const byKey = (key: string) => tables.find((table) => table.version.key === key)!;
    ordered.push(byKey(current.key), ...tables.filter((t) => t.version.key !== current.key));
    return new VectorIndex(
      source,
      options,
      prepareItemWindows(db, source.itemTables),
      prepareProgressTable(db),
      ordered[0]!,
      previous && byKey(previous.key),
      ordered,
    );
  }

  /** Every version in the file, the current one first. */
  get versions(): readonly VectorVersion[] {
    return this.context.tables.map((table) => table.version);
  }

  /**
   * How far the rows follow the read models' deletions and erasures in a memory (the read
   * models' key `mem`): the vector windows projection's checkpoint.
   */
  windowsCheckpoint(mem: number): number {
    return windowsCheckpoint(this.context, mem);
  }

  /**
   * Applies the deletions and erasures the read models hold to the rows, inside the caller's
   * transaction (the read models applied theirs first); a scrub of the file's write-ahead log
   * follows once it ended when rows of erased items were deleted.
   */
  applyWindows(mem: number): void {
    if (syncWindows(this.context, mem)) queueMicrotask(() => this.source.scrub());
  }

  /** Whether every version's progress in a memory fits the read models (the same log). */
  agrees(mem: number): boolean {
    return windowsAgree(this.context, mem);
  }

  /** Forgets every version's progress in a memory whose derived data is rebuilt (rows are kept). */
  reset(mem: number): void {
    resetVectors(this.context, mem);
  }

  /**
   * Embeds what the memory's serving version lacks, in batches, walking at most `maxItems` items
   * (all by default); resolves with the items walked and the texts embedded. Calls for one
   * memory run one after the other.
   */
  catchUp(
    mem: number,
    options: {
      readonly maxItems?: number;
      readonly signal?: AbortSignal;
      readonly table?: VectorTable;
    } = {},
  ): Promise<{ items: number; embedded: number }> {
    const before = this.running.get(mem) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(() => this.catchUpNow(mem, options));
    this.running.set(mem, run);
    const done = () => {
      if (this.running.get(mem) === run) this.running.delete(mem);
    };
    run.then(done, done);
    return run;
  }

  private async catchUpNow(
    mem: number,
    options: {
      readonly maxItems?: number;
      readonly signal?: AbortSignal;
      readonly table?: VectorTable;
    },
  ): Promise<{ items: number; embedded: number }> {
    const table = options.table ?? this.current;
    const embedder = table === this.current ? this.options.embedder : this.options.previous!;
    const max = options.maxItems ?? Infinity;
    let items = 0;
    let embedded = 0;
    if (max <= 0 || this.windows.checkpoint(mem).seq < 0) return { items, embedded };
    for (;;) {
      const batchSize = Math.max(1, Math.min(this.batchSize, max - items));
      const outcome: BatchOutcome = await embedNextBatch(this.context, mem, {
        table,
        embedder,
        batchSize,
        maxChars: this.maxChars,
        signal: options.signal,
      });
      items += outcome.items;
      embedded += outcome.embedded;
      if (outcome.done || items >= max) return { items, embedded };
    }
  }

  /** The version that serves a memory now, or undefined (lexical) while none can. */
  serving(mem: number): Serving | undefined {
    const vmem = this.memories.vmemOf(mem, false);
    const ready = (table: VectorTable) =>
      vmem !== undefined && this.progressTable.get(table.version.key, vmem).ready;
    if (this.windows.checkpoint(mem).seq < 0 || ready(this.current))
      return { table: this.current, embedder: this.options.embedder, which: 'current' };
    // Another quantization or an older layout of the same model holds the same vectors: it
    // serves while the current version is built from them.
    const { model, dimensions } = this.current.version;
    const sibling = this.tables.find(
      (table) =>
        table !== this.current &&
        table.version.model === model &&
        table.version.dimensions === dimensions &&
        ready(table),
    );
    if (sibling) return { table: sibling, embedder: this.options.embedder, which: 'current' };
    if (this.previous && this.options.previous && ready(this.previous))
      return { table: this.previous, embedder: this.options.previous, which: 'previous' };
    return undefined;
  }

  /** How far `table` (the current version by default) stands in a memory, as of `asOfSeq`. */
  lag(mem: number, asOfSeq: number, table: VectorTable = this.current): VectorLag {
    const vmem = this.memories.vmemOf(mem, false);
    const progress =
      vmem === undefined ? undefined : this.progressTable.get(table.version.key, vmem);
    const through = progress?.seq ?? -1;
    return {
      indexedThroughSeq: through < 0 ? null : through,
      behind: this.windows.contentBetween(mem, through, asOfSeq),
      ready: progress?.ready ?? this.windows.checkpoint(mem).seq < 0,
    };
  }

  /** The nearest visible items to `query` (a vector of the table's model) as of a seq. */
  search(
    mem: number,
    table: VectorTable,
    query: Float32Array,
    options: VectorSearchOptions,
  ): VectorHit[] {
    const vmem = this.memories.vmemOf(mem, false);
    if (vmem === undefined) return [];
    const through = this.progressTable.get(table.version.key, vmem).seq;
    const scope = { table, windows: this.windows, mem, vmem, through };
    return searchVectors(scope, query, { ...options, config: this.options });
  }

  /** How a search of memory `mem` in `table` runs now, as its Recall records it. */
  searchRecord(mem: number, table: VectorTable): VectorSearchRecord {
    return searchRecordOf(table, this.memories.vmemOf(mem, false), this.options);
  }

  /**
   * Checkpoints the file's write-ahead log without waiting: the follower calls it after it wrote
   * vectors, so that appends do not pay for copying the vectors' pages (wal-scrub.ts).
   */
  checkpointWrites(): void {
    passiveCheckpoint(this.context.db);
  }

  /** Every version's progress over the memories (for logs and `/metrics`). */
  progress(): VersionProgress[] {
    return this.tables.map((table) =>
      versionProgress(table.version, table === this.current, this.progressTable, this.windows),
    );
  }

  /**
   * Drops the versions of models no longer configured once the current one is ready in every
   * memory the file's read models hold; returns the keys dropped.
   */
  retireOldVersions(memoryKeys: readonly number[]): string[] {
    const everywhere = memoryKeys.every(
      (mem) => this.lag(mem, this.windows.checkpoint(mem).seq).ready,
    );
    if (!everywhere) return [];
    const keep = new Set([this.current.version.key, this.previous?.version.key]);
    const dropped = this.context.tables.filter((table) => !keep.has(table.version.key));
    for (const table of dropped) dropVectorVersion(this.source.db, table.version.key);
    this.tables.splice(0, this.tables.length, ...this.tables.filter((t) => !dropped.includes(t)));
    return dropped.map((table) => table.version.key);
  }
}

/** Opens the vector index of a read-model file. */
export function openVectorIndex(source: VectorSource, options: VectorIndexOptions): VectorIndex {
  return VectorIndex.open(source, options);
}

/** sqlite-vec loaded into `db`; the package itself is loaded only when a vector index opens. */
function loadSqliteVec(db: VectorSource['db']): void {
  const sqliteVec = createRequire(import.meta.url)('sqlite-vec') as typeof SqliteVec;
  sqliteVec.load(db);
}
