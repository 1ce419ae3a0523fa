/**
 * Cells of a large memory: an inverted file under the visibility filter. A KNN without cells
 * reads every row of its memory (vec0 scans the memory's chunks), which at a million rows costs
 * more than a recall may take; with cells it reads only the rows of the `probes` cells whose
 * medoids lie nearest the query, so its top k is the top k among those rows: approximate, with
 * the recall measured in BENCHMARKS.md. The window filter still runs inside each cell's scan, so
 * every hit is content visible at the seq asked about.
 *
 * A memory's rows go to cell 0 until it holds {@link ROWS_PER_CELL} rows per cell; then its cells
 * are formed, once: `cells` of its rows, evenly spaced in the order written, become the medoids,
 * every row moves to the cell of its nearest medoid (by the float vectors), and each later row
 * goes to its nearest medoid as it is written.
 *
 * A cell is named by one of its rows (the medoid), never by a vector computed from content: when
 * a medoid's row is removed (an Erasure), the cell passes to the row of the cell nearest to it,
 * found before the row leaves, so no erased vector survives in the cells, not even averaged.
 */
import type Database from 'better-sqlite3';
import { writing } from '../db/transactions.js';
import { SEQ_SPAN, type VectorVersion } from './vector-layout.js';

/** Rows per cell, on average, when a memory's cells are formed. */
export const ROWS_PER_CELL = 16;

/**
 * Cells a KNN reads when the options name no number: a third of them (at least one). Sentence
 * vectors cluster weakly, so fewer cells lose too much of the exact top 10 (BENCHMARKS.md, "Cells").
 */
export function defaultProbes(cells: number): number {
  return Math.max(1, Math.ceil(cells / 3));
}

/** The cell of every row of a memory whose cells are not formed yet. */
export const UNFORMED = 0;

/** What the cells need of the version's rows (vector-table.ts). */
export interface CellRows {
  /** The keys of memory `vmem`'s rows, in the order written. */
  keysOf(vmem: number): bigint[];
  /** How many rows memory `vmem` has. */
  countOf(vmem: number): number;
  /** The float vector of the row at `key`. */
  floatsOf(key: bigint): Float32Array | undefined;
  /** Moves the row at `key`, whose float vector is `vector`, to `cell` (vectors and window kept). */
  move(key: bigint, cell: number, vector: Float32Array): void;
  /**
   * The row of `vmem`'s `cell` nearest to `vector` other than `except`, whatever its window;
   * undefined if none.
   */
  nearestIn(vmem: number, cell: number, vector: Float32Array, except: bigint): bigint | undefined;
}

/** The cells of one version with cells. */
export interface VectorCells {
  /** The cell a new row of memory `vmem` goes to: its nearest medoid's, or cell 0 before. */
  cellOf(vmem: number, vector: Float32Array): number;
  /** The cells a KNN of memory `vmem` reads: the `probes` of nearest medoids, or cell 0 before. */
  probe(vmem: number, query: Float32Array, probes: number): number[];
  /** How many cells memory `vmem`'s rows are split into: 0 before they form. */
  formed(vmem: number): number;
  /** After a row of `vmem` was inserted: forms the memory's cells once it holds enough rows. */
  afterInsert(vmem: number): void;
  /**
   * Before the row at `key` of `vmem` leaves (whether or not it exists): a cell it names passes to
   * its nearest other row.
   */
  beforeRemove(vmem: number, key: bigint): void;
}

/** The medoids of one memory, as last read. */
interface Medoids {
  /** Which rows named the cells when read: another connection's change shows in it. */
  readonly signature: string;
  readonly cells: Int32Array;
  /** The medoids' float vectors, one after the other. */
  readonly vectors: Float32Array;
}

/** The cells of `version` (whose `cells` is above 0) on `db`. */
export function prepareVectorCells(
  db: Database.Database,
  version: VectorVersion,
  rows: CellRows,
): VectorCells {
  const { key: t, cells: count, dimensions } = version;
  const sql = {
    medoids: db
      .prepare<[string, number], { cell: number; medoid: bigint }>(
        'SELECT cell, medoid FROM vec_cells WHERE key = ? AND vmem = ? ORDER BY cell',
      )
      .safeIntegers(true),
    // Which rows name the cells, in three numbers: the seqs' sum is exact (seqs stay below 2^40,
    // a sum of 4,096 of them below 2^52), the sum weighted by cell tells a swap apart.
    signature: db
      .prepare<[string, number], string>(
        `SELECT count(*) || ':' || coalesce(sum(medoid % ${SEQ_SPAN}), 0) || ':' ||
                total((medoid % ${SEQ_SPAN}) * cell)
           FROM vec_cells WHERE key = ? AND vmem = ?`,
      )
      .pluck(),
    cellNamedBy: db
      .prepare<[string, number, bigint], number>(
        'SELECT cell FROM vec_cells WHERE key = ? AND vmem = ? AND medoid = ?',
      )
      .pluck(),
    insert: db.prepare<[string, number, number, bigint]>(
      'INSERT INTO vec_cells (key, vmem, cell, medoid) VALUES (?, ?, ?, ?)',
    ),
    hand: db.prepare<[bigint, string, number, number]>(
      'UPDATE vec_cells SET medoid = ? WHERE key = ? AND vmem = ? AND cell = ?',
    ),
    drop: db.prepare<[string, number, number]>(
      'DELETE FROM vec_cells WHERE key = ? AND vmem = ? AND cell = ?',
    ),
  };
  const known = new Map<number, Medoids>();
  const counted = new Map<number, number>();

  const medoidsOf = (vmem: number): Medoids | undefined => {
    const signature = sql.signature.get(t, vmem)!;
    const cached = known.get(vmem);
    if (cached?.signature === signature) return cached;
    known.delete(vmem);
    if (signature.startsWith('0:')) return undefined;
    const named = sql.medoids.all(t, vmem);
    const vectors = new Float32Array(named.length * dimensions);
    named.forEach(({ medoid }, i) => vectors.set(rows.floatsOf(medoid)!, i * dimensions));
    const medoids = {
      signature,
      cells: Int32Array.from(named, (row) => Number(row.cell)),
      vectors,
    };
    known.set(vmem, medoids);
    return medoids;
  };

  const form = (vmem: number) => {
    const keys = rows.keysOf(vmem);
    const medoidKeys = Array.from(
      { length: count },
      (_, i) => keys[Math.floor((i * keys.length) / count)]!,
    );
    writing(db, () => {
      medoidKeys.forEach((medoid, i) => sql.insert.run(t, vmem, i + 1, medoid));
      const medoids = medoidsOf(vmem)!;
      for (const key of keys) {
        const vector = rows.floatsOf(key)!;
        rows.move(key, nearestCell(medoids, vector, dimensions), vector);
      }
    });
  };

  return {
    cellOf(vmem, vector) {
      const medoids = medoidsOf(vmem);
      return medoids ? nearestCell(medoids, vector, dimensions) : UNFORMED;
    },
    probe(vmem, query, probes) {
      const medoids = medoidsOf(vmem);
      return medoids ? nearestCells(medoids, query, dimensions, probes) : [UNFORMED];
    },
    formed: (vmem) => medoidsOf(vmem)?.cells.length ?? 0,
    afterInsert(vmem) {
      if (known.has(vmem)) return;
      const threshold = count * ROWS_PER_CELL;
      // Counted here and read again only at the threshold: other connections' rows only move
      // the moment the cells are formed.
      const seen = counted.has(vmem) ? counted.get(vmem)! + 1 : rows.countOf(vmem);
      counted.set(vmem, seen);
      if (seen < threshold) return;
      counted.delete(vmem);
      if (medoidsOf(vmem) || rows.countOf(vmem) < threshold) return;
      form(vmem);
    },
    beforeRemove(vmem, key) {
      const cell = sql.cellNamedBy.get(t, vmem, key);
      if (cell === undefined) return;
      const heir = rows.nearestIn(vmem, cell, rows.floatsOf(key)!, key);
      if (heir === undefined) sql.drop.run(t, vmem, cell);
      else sql.hand.run(heir, t, vmem, cell);
      known.delete(vmem);
    },
  };
}

/** The dot product of `vector` with each medoid (unit vectors: the larger, the nearer). */
function dots(medoids: Medoids, vector: Float32Array, dimensions: number): Float64Array {
  const { cells, vectors } = medoids;
  const out = new Float64Array(cells.length);
  for (let c = 0; c < cells.length; c++) {
    let dot = 0;
    const offset = c * dimensions;
    for (let d = 0; d < dimensions; d++) dot += vectors[offset + d]! * vector[d]!;
    out[c] = dot;
  }
  return out;
}

/** The cell of the medoid nearest `vector`. */
function nearestCell(medoids: Medoids, vector: Float32Array, dimensions: number): number {
  const scores = dots(medoids, vector, dimensions);
  let best = 0;
  for (let c = 1; c < scores.length; c++) if (scores[c]! > scores[best]!) best = c;
  return medoids.cells[best]!;
}

/** The cells of the `n` medoids nearest `vector`, nearest first. */
function nearestCells(medoids: Medoids, vector: Float32Array, dimensions: number, n: number) {
  const scores = dots(medoids, vector, dimensions);
  const order = Array.from(medoids.cells.keys()).sort((a, b) => scores[b]! - scores[a]!);
  return order.slice(0, Math.min(n, order.length)).map((c) => medoids.cells[c]!);
}
