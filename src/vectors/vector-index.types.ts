/**
 * The shapes around the vector index (vector-index.ts): its options, what it reads the log's
 * content with, and what it answers about a memory's versions.
 */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../core/index.js';
import type { Embedder } from '../embeddings/index.js';
import type { ItemTables } from './item-windows.js';
import type { Quantization } from './vector-layout.js';
import type { VectorTable } from './vector-table.js';

/** Options of `openVectorIndex`. */
export interface VectorIndexOptions {
  /** The model whose vectors are built and searched. */
  readonly embedder: Embedder;
  /** The model of an earlier version, serving a memory until the current one caught up with it. */
  readonly previous?: Embedder | undefined;
  /**
   * How searched vectors are stored: `none` (float32, the exact top k), `int8` or `binary` (a
   * quantized copy searched first, its candidates re-scored with the floats).
   * @defaultValue `DEFAULT_QUANTIZATION` (`none`: float, the exact top k)
   */
  readonly quantization?: Quantization | undefined;
  /**
   * Cells a large memory's rows are split into, so that a KNN reads only the rows of the cells
   * nearest its query (vector-cells.ts): faster, not exact. 0: none. @defaultValue 0
   */
  readonly cells?: number | undefined;
  /** Cells a KNN reads when the version has cells. @defaultValue `defaultProbes(cells)` */
  readonly probes?: number | undefined;
  /** Items per embedding batch (one write transaction each). @defaultValue 256 */
  readonly batchSize?: number | undefined;
  /** Characters of an item that are embedded. @defaultValue 8000 */
  readonly maxChars?: number | undefined;
  /** Quantized KNN candidates per wanted hit, re-scored with the floats. @defaultValue 4 */
  readonly oversample?: number | undefined;
  /**
   * Bytes of the file the connection maps into memory (`PRAGMA mmap_size`; 0: none). A KNN reads
   * every vector of a memory: through SQLite's page cache that is a copy of each page per query,
   * mapped it is a read of memory the OS already caches. @defaultValue 2 GiB (SQLite's maximum)
   */
  readonly mmapBytes?: number | undefined;
}

/** What the vector index reads the log's content with (the read models' own loader). */
export interface VectorSource {
  /** The read-model file's connection (its tables `rm_items`, `rm_memories` beside). */
  readonly db: Database.Database;
  /** Content events of the memory `memoryId` (the read models' key `mem`) by seq, in plain text. */
  events(mem: number, memoryId: string, seqs: readonly number[]): Sequenced[];
  /** Asks for a scrub of the file's write-ahead log. */
  scrub(): void;
  /**
   * The item index's table names in the serving read-model layout (the tables' own names when
   * absent): asked at each use, since a layout built beside may take over.
   */
  readonly itemTables?: () => ItemTables;
}

/** Which version serves a memory now, with its model. */
export interface Serving {
  readonly table: VectorTable;
  readonly embedder: Embedder;
  /** `current`, or `previous` while the current model is being built for the memory. */
  readonly which: 'current' | 'previous';
}

/** How far a version stands in one memory, for metrics and answers. */
export interface VectorLag {
  /** Rows are complete up to this seq (null: none). */
  readonly indexedThroughSeq: number | null;
  /** Content items not embedded yet, up to the seq asked about. */
  readonly behind: number;
  /** True once the version has caught up with the memory (it serves). */
  readonly ready: boolean;
}
