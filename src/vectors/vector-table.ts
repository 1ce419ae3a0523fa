/**
 * The statements over one version's tables (vector-layout.ts): rows in and out, windows, the
 * digest cache, the KNN and the float re-scoring of a quantized version. Vectors go in as unit
 * float32 (the index normalizes them), so the L2 distance orders like the cosine.
 */
import type Database from 'better-sqlite3';
import { binaryStart, KnnBound } from './knn-bound.js';
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
  /** Exact L2 distances of the rows at `keys` (the float vectors) to `query`. */
  exact(query: Float32Array, keys: readonly bigint[]): Map<bigint, number>;
  /** The keys of the rows from `from` to `to` (one memory's range, or part of it). */
  keysBetween(from: bigint, to: bigint): bigint[];
}

/** The statements of `version` that read and write its vectors. */
function vectorStatements(db: Database.Database, version: VectorVersion) {
  const { key: t, quantization } = version;
  const quantize =
    quantization === 'none'
      ? '?'
      : quantization === 'int8'
        ? "vec_quantize_int8(?, 'unit')"
        : 'vec_quantize_binary(?)';
  // The float vectors: the searched column itself, or the copy kept for re-scoring. A quantized
  // version of layout 1 kept it in vec0's `exact` column: read there while it retires.
  const ownTable =
    quantization !== 'none' &&
    db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
      .get(`${t}_floats`) !== undefined;
  const floats =
    quantization === 'none'
      ? { table: `${t}_vec`, key: 'rowid', column: 'emb' }
      : ownTable
        ? { table: `${t}_floats`, key: 'rowid', column: 'v' }
        : { table: `${t}_vec`, key: 'rowid', column: 'exact' };
  const celled = version.cells > 0;
  // A version with cells reads the cells probed (`cell IN (...)`: vec0 runs the KNN once per
  // cell, each giving its own top k) and its rows carry their cell.
  const knnIn = (cells: number) =>
    `SELECT rowid AS key, distance FROM ${t}_vec
     WHERE emb MATCH ${quantize} AND k = ? AND vmem = ? AND written <= ? AND gone > ?` +
    (celled ? ` AND cell IN (${Array.from({ length: cells }, () => '?').join(', ')})` : '');
  const knnStatements = new Map<number, ReturnType<typeof prepareKnn>>();
  const prepareKnn = (cells: number) => ({
    knn: db
      .prepare<(Buffer | number | bigint)[], { key: bigint; distance: number }>(knnIn(cells))
      .safeIntegers(true),
    knnWithin: db
      .prepare<(Buffer | number | bigint)[], { key: bigint; distance: number }>(
        `${knnIn(cells)} AND distance <= ?`,
      )
      .safeIntegers(true),
  });
  const insertCelled = celled
    ? db.prepare<[bigint, bigint, bigint, Buffer, bigint, bigint]>(
        `INSERT INTO ${t}_vec (rowid, vmem, cell, emb, written, gone)
         VALUES (?, ?, ?, ${quantize}, ?, ?)`,
      )
    : undefined;
  const insertPlain = celled
    ? undefined
    : db.prepare<[bigint, bigint, Buffer, bigint, bigint]>(
        `INSERT INTO ${t}_vec (rowid, vmem, emb, written, gone) VALUES (?, ?, ${quantize}, ?, ?)`,
      );
  return {
    /** Inserts a row of the searched table (`cell` is left out of a version without cells). */
    insertVec(key: bigint, vmem: bigint, cell: number, emb: Buffer, written: bigint, gone: bigint) {
      if (insertCelled) insertCelled.run(key, vmem, BigInt(cell), emb, written, gone);
      else insertPlain!.run(key, vmem, emb, written, gone);
    },
    insertFloats: ownTable
      ? db.prepare<[bigint, Buffer]>(`INSERT INTO ${t}_floats (rowid, v) VALUES (?, ?)`)
      : undefined,
    removeFloats: ownTable
      ? db.prepare<[bigint]>(`DELETE FROM ${t}_floats WHERE rowid = ?`)
      : undefined,
    window: db
      .prepare<[bigint], { vmem: bigint; cell: bigint; written: bigint; gone: bigint }>(
        `SELECT vmem, ${celled ? 'cell' : '0 AS cell'}, written, gone FROM ${t}_vec WHERE rowid = ?`,
      )
      .safeIntegers(true),
    floatsOf: db
      .prepare<[bigint], Buffer>(
        `SELECT ${floats.column} FROM ${floats.table} WHERE ${floats.key} = ?`,
      )
      .pluck(),
    // Joined from the list, each row is read by its key (vec0's `rowid IN (...)` scans them all).
    exact: db
      .prepare<[Buffer, string], { key: bigint; distance: number }>(
        `SELECT f.${floats.key} AS key, vec_distance_l2(f.${floats.column}, ?) AS distance
           FROM json_each(?) AS j JOIN ${floats.table} AS f ON f.${floats.key} = j.value`,
      )
      .safeIntegers(true),
    /** The KNN statements reading `cells` cells (one, when the version has none). */
    knnOver(cells: number) {
      let statements = knnStatements.get(cells);
      if (!statements) knnStatements.set(cells, (statements = prepareKnn(cells)));
      return statements;
    },
    nearestInCell: celled
      ? db
          .prepare<[Buffer, bigint, bigint], bigint>(
            `SELECT rowid FROM ${t}_vec WHERE emb MATCH ${quantize} AND k = 2 AND vmem = ? AND cell = ?`,
          )
          .pluck()
          .safeIntegers(true)
      : undefined,
  };
}

/** The statements over the digest cache of `version`. */
function keyStatements(db: Database.Database, { key: t }: VectorVersion) {
  return {
    insertKey: db.prepare<[bigint, Buffer]>(`INSERT INTO ${t}_keys (key, digest) VALUES (?, ?)`),
    setGone: db.prepare<[bigint, bigint]>(`UPDATE ${t}_vec SET gone = ? WHERE rowid = ?`),
    removeVec: db.prepare<[bigint]>(`DELETE FROM ${t}_vec WHERE rowid = ?`),
    removeKey: db.prepare<[bigint]>(`DELETE FROM ${t}_keys WHERE key = ?`),
    digests: db
      .prepare<[string], { key: bigint; digest: Buffer }>(
        `SELECT key, digest FROM ${t}_keys WHERE key IN (SELECT value FROM json_each(?))`,
      )
      .safeIntegers(true),
    byDigest: db
      .prepare<[Buffer], bigint>(`SELECT key FROM ${t}_keys WHERE digest = ? LIMIT 1`)
      .pluck()
      .safeIntegers(true),
    keysBetween: db
      .prepare<[bigint, bigint], bigint>(`SELECT key FROM ${t}_keys WHERE key BETWEEN ? AND ?`)
      .pluck()
      .safeIntegers(true),
  };
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
