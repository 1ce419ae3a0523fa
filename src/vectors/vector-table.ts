/**
 * The statements over one version's tables (vector-layout.ts): rows in and out, windows, the
 * digest cache, the KNN and the float re-scoring of a quantized version. Vectors go in as unit
 * float32 (the index normalizes them), so the L2 distance orders like the cosine.
 */
import type Database from 'better-sqlite3';
import { binaryStart, KnnBound } from './knn-bound.js';
import { prepareBinaryCentre } from './binary-centre.js';
import { centredVersion, vectorBytes, vectorOfBytes, type VectorVersion } from './vector-layout.js';

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
  /** The `k` nearest rows of memory `vmem` written at or before `writtenUpTo`, gone after `goneAfter`. */
  knn(
    query: Float32Array,
    k: number,
    vmem: number,
    writtenUpTo: number,
    goneAfter: number,
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
  const knn = `SELECT rowid AS key, distance FROM ${t}_vec
    WHERE emb MATCH ${quantize} AND k = ? AND vmem = ? AND written <= ? AND gone > ?`;
  return {
    insertVec: db.prepare<[bigint, bigint, Buffer, bigint, bigint]>(
      `INSERT INTO ${t}_vec (rowid, vmem, emb, written, gone) VALUES (?, ?, ${quantize}, ?, ?)`,
    ),
    insertFloats: ownTable
      ? db.prepare<[bigint, Buffer]>(`INSERT INTO ${t}_floats (rowid, v) VALUES (?, ?)`)
      : undefined,
    removeFloats: ownTable
      ? db.prepare<[bigint]>(`DELETE FROM ${t}_floats WHERE rowid = ?`)
      : undefined,
    window: db
      .prepare<[bigint], { vmem: bigint; written: bigint; gone: bigint }>(
        `SELECT vmem, written, gone FROM ${t}_vec WHERE rowid = ?`,
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
    knn: db
      .prepare<[Buffer, number, bigint, bigint, bigint], { key: bigint; distance: number }>(knn)
      .safeIntegers(true),
    knnWithin: db
      .prepare<[Buffer, number, bigint, bigint, bigint, number], { key: bigint; distance: number }>(
        `${knn} AND distance <= ?`,
      )
      .safeIntegers(true),
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
  // its type), so a row quantized again is written again with its window.
  const requantize = (key: bigint, centred: Float32Array) => {
    const { vmem, written, gone } = vec.window.get(key)!;
    sql.removeVec.run(key);
    vec.insertVec.run(key, vmem, vectorBytes(centred), written, gone);
  };
  const bound = new KnnBound(initialBound(version));
  const list = (keys: readonly bigint[]) => `[${keys.join(',')}]`;
  const stored = (digest: Buffer) => {
    const key = sql.byDigest.get(digest);
    const bytes = key === undefined ? undefined : vec.floatsOf.get(key);
    return bytes === undefined ? undefined : vectorOfBytes(bytes);
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
      vec.insertVec.run(key, BigInt(vmem), searched(vector), BigInt(written), gone);
      vec.insertFloats?.run(key, vectorBytes(vector));
      sql.insertKey.run(key, digest);
      centre?.afterInsert(requantize);
    },
    setGone: (key, gone) => void sql.setGone.run(gone, key),
    remove(key) {
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
    knn(query, k, vmem, writtenUpTo, goneAfter) {
      if (writtenUpTo < 0 || k < 1) return [];
      const args: [Buffer, number, bigint, bigint, bigint] = [
        searched(query),
        k,
        BigInt(vmem),
        BigInt(writtenUpTo),
        BigInt(goneAfter),
      ];
      const run = (within: number | undefined) =>
        within === undefined ? vec.knn.all(...args) : vec.knnWithin.all(...args, within);
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
