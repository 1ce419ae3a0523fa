/**
 * One version's table (vector-layout.ts) over its statements (vector-statements.ts): rows in and
 * out, windows, the digest cache, the KNN and the float re-scoring of a quantized version. Vectors
 * go in as unit float32 (the index normalizes them), so the L2 distance orders like the cosine.
 */
import type Database from 'better-sqlite3';
import { binaryStart, KnnBound } from './knn-bound.js';
import { keyStatements, vectorStatements } from './vector-statements.js';
import { prepareBinaryCentre } from './binary-centre.js';
import { prepareVectorCells, UNFORMED } from './vector-cells.js';
import {
  centredVersion,
  memoryKeyRange,
  vectorBytes,
  vectorOfBytes,
  vmemOfKey,
  type VectorVersion,
} from './vector-layout.js';

/** One KNN candidate: its rowid and its distance (L2 for floats, the quantized distance else). */
export interface Neighbour {
  readonly key: bigint;
  readonly distance: number;
}

/** One row to write: its key, memory, vector, window and content digest. */
export interface VectorRow {
  readonly key: bigint;
  readonly vmem: number;
  readonly vector: Float32Array;
  readonly written: number;
  readonly gone: bigint;
  readonly digest: Buffer;
}

/** The statements over one version. */
export interface VectorTable {
  readonly version: VectorVersion;
  insert(row: VectorRow): void;
  setGone(key: bigint, gone: bigint): void;
  /** Deletes the row and its digest; false when there was none. */
  remove(key: bigint): boolean;
  /** The digests of the rows at `keys` that exist. */
  digests(keys: readonly bigint[]): Map<bigint, Buffer>;
  /**
   * The float vector of content with `digest` (the cache): from a row of this version, or of
   * another version of the same model and dimensions, if any.
   */
  cached(digest: Buffer): Float32Array | undefined;
  /** The float vector of some row of this version whose content has `digest`, if any. */
  stored(digest: Buffer): Float32Array | undefined;
  /**
   * The `k` nearest rows of memory `vmem` written at or before `writtenUpTo`, gone after
   * `goneAfter`: among the rows of the `probes` cells nearest `query` in a version with cells.
   */
  knn(
    query: Float32Array,
    k: number,
    vmem: number,
    writtenUpTo: number,
    goneAfter: number,
    probes?: number,
  ): Neighbour[];
  /** How many cells memory `vmem`'s rows are split into: 0 without cells, or before they form. */
  cellsIn(vmem: number): number;
  /** Exact L2 distances of the rows at `keys` (the float vectors) to `query`. */
  exact(query: Float32Array, keys: readonly bigint[]): Map<bigint, number>;
  /** The keys of the rows from `from` to `to` (one memory's range, or part of it). */
  keysBetween(from: bigint, to: bigint): bigint[];
}

/** The `k` nearest of rows from several cells, nearest first (ties by key). */
function topOf<T extends { key: bigint; distance: number }>(rows: T[], k: number): T[] {
  return rows
    .sort((a, b) => Number(a.distance) - Number(b.distance) || (a.key < b.key ? -1 : 1))
    .slice(0, k);
}

/** The first guess of a quantized KNN's bound, before a search taught one. */
function initialBound({ quantization, dimensions }: VectorVersion): number {
  // Sign bits differ in about a third of the places for near neighbours; int8 'unit' scales
  // the unit sphere by 127.5, where neighbours lie about 1 apart.
  return quantization === 'binary' ? dimensions * 0.375 : 127.5;
}

/**
 * Prepares the statements of `version` on `db` (its tables must exist); `versions` lists every
 * version of the file, whose vectors of the same model the cache may copy.
 */
export function prepareVectorTable(
  db: Database.Database,
  version: VectorVersion,
  versions: () => readonly VectorTable[] = () => [],
): VectorTable {
  const vec = vectorStatements(db, version);
  const sql = keyStatements(db, version);
  const quantized = version.quantization !== 'none';
  const centre = centredVersion(version) ? prepareBinaryCentre(db, version) : undefined;
  // What the searched column quantizes: the vector, or a binary version's around its centre.
  const searched = (vector: Float32Array) => vectorBytes(centre ? centre.centred(vector) : vector);
  // vec0 takes a bit vector only from vec_quantize_binary() in an INSERT (an UPDATE's value loses
  // its type) and cannot update a partition key, so a row quantized again, or moved to another
  // cell, is written again with its window.
  const rewrite = (key: bigint, bytes: Buffer, cell?: number) => {
    const window = vec.window.get(key)!;
    sql.removeVec.run(key);
    const { vmem, written, gone } = window;
    vec.insertVec(key, vmem, cell ?? Number(window.cell), bytes, written, gone);
  };
  const requantize = (key: bigint, centred: Float32Array) => rewrite(key, vectorBytes(centred));
  const floatsOf = (key: bigint) => {
    const bytes = vec.floatsOf.get(key);
    return bytes === undefined ? undefined : vectorOfBytes(bytes);
  };
  const cells =
    version.cells > 0
      ? prepareVectorCells(db, version, {
          keysOf: (vmem) => sql.keysBetween.all(...memoryKeyRange(vmem)),
          countOf: (vmem) => sql.countBetween.get(...memoryKeyRange(vmem))!,
          floatsOf,
          move: (key, cell, vector) => rewrite(key, searched(vector), cell),
          nearestIn(vmem, cell, vector, except) {
            const near = vec.nearestInCell!.all(searched(vector), BigInt(vmem), BigInt(cell));
            return near.find((key) => key !== except);
          },
        })
      : undefined;
  const bound = new KnnBound(initialBound(version));
  const list = (keys: readonly bigint[]) => `[${keys.join(',')}]`;
  const stored = (digest: Buffer) => {
    const key = sql.byDigest.get(digest);
    return key === undefined ? undefined : floatsOf(key);
  };
  const sameModel = ({ version: other }: VectorTable) =>
    other.key !== version.key &&
    other.model === version.model &&
    other.dimensions === version.dimensions;
  const neighbours = (rows: { key: bigint; distance: number }[]) =>
    rows.map((row) => ({ key: row.key, distance: Number(row.distance) }));
  return {
    version,
    insert({ key, vmem, vector, written, gone, digest }) {
      const cell = cells?.cellOf(vmem, vector) ?? UNFORMED;
      vec.insertVec(key, BigInt(vmem), cell, searched(vector), BigInt(written), gone);
      vec.insertFloats?.run(key, vectorBytes(vector));
      sql.insertKey.run(key, digest);
      centre?.afterInsert(requantize);
      cells?.afterInsert(vmem);
    },
    setGone: (key, gone) => void sql.setGone.run(gone, key),
    remove(key) {
      cells?.beforeRemove(vmemOfKey(key), key);
      sql.removeKey.run(key);
      vec.removeFloats?.run(key);
      return sql.removeVec.run(key).changes > 0;
    },
    digests(keys) {
      const out = new Map<bigint, Buffer>();
      if (keys.length === 0) return out;
      for (const row of sql.digests.all(list(keys))) out.set(row.key, row.digest);
      return out;
    },
    cached(digest) {
      let vector = stored(digest);
      for (const other of versions())
        if (!vector && sameModel(other)) vector = other.stored(digest);
      return vector;
    },
    stored,
    knn(query, k, vmem, writtenUpTo, goneAfter, probes = 1) {
      if (writtenUpTo < 0 || k < 1) return [];
      const probed = cells?.probe(vmem, query, probes) ?? [];
      const args = [searched(query), k, BigInt(vmem), BigInt(writtenUpTo), BigInt(goneAfter)];
      const cellArgs = probed.map((cell) => BigInt(cell));
      const { knn, knnWithin } = vec.knnOver(Math.max(1, probed.length));
      // Each cell gives its own top k: the top k of them all is the KNN's.
      const run = (within: number | undefined) => {
        const rows =
          within === undefined
            ? knn.all(...args, ...cellArgs)
            : knnWithin.all(...args, ...cellArgs, within);
        return probed.length > 1 ? topOf(rows, k) : rows;
      };
      if (!quantized) return neighbours(run(undefined));
      const start = version.quantization === 'binary' ? binaryStart(k) : 'widest';
      for (const within of bound.attempts(k, start)) {
        const rows = run(within);
        if (rows.length === k) bound.learn(k, Number(rows[k - 1]!.distance));
        if (rows.length === k || within === undefined) return neighbours(rows);
      }
      return [];
    },
    cellsIn: (vmem) => cells?.formed(vmem) ?? 0,
    exact(query, keys) {
      const out = new Map<bigint, number>();
      if (keys.length === 0) return out;
      for (const row of vec.exact.all(vectorBytes(query), list(keys)))
        out.set(row.key, Number(row.distance));
      return out;
    },
    keysBetween: (from, to) => sql.keysBetween.all(from, to),
  };
}
