/**
 * The SQL of one version's tables (vector-layout.ts), prepared: the searched vec0 table with its
 * KNN per number of cells read, the float copy read by key, and the digest cache. The logic over
 * them is vector-table.ts.
 */
import type Database from 'better-sqlite3';
import type { VectorVersion } from './vector-layout.js';

type Statement<P extends unknown[], R = unknown> = Database.Statement<P, R>;
/** A KNN's row: its rowid and distance. */
type KnnRow = { key: bigint; distance: number };
/** A KNN's arguments: query, k, memory, window bounds, the cells read, and a bound if any. */
type KnnArgs = (Buffer | number | bigint)[];

/** The statements over a version's vectors. */
export interface VectorStatements {
  /** Inserts a row of the searched table (`cell` is left out of a version without cells). */
  insertVec(
    key: bigint,
    vmem: bigint,
    cell: number,
    emb: Buffer,
    written: bigint,
    gone: bigint,
  ): void;
  readonly insertFloats: Statement<[bigint, Buffer]> | undefined;
  readonly removeFloats: Statement<[bigint]> | undefined;
  readonly window: Statement<
    [bigint],
    { vmem: bigint; cell: bigint; written: bigint; gone: bigint }
  >;
  readonly floatsOf: Statement<[bigint], Buffer>;
  readonly exact: Statement<[Buffer, string], KnnRow>;
  /** The KNN statements reading `cells` cells (one, when the version has none). */
  knnOver(cells: number): {
    knn: Statement<KnnArgs, KnnRow>;
    knnWithin: Statement<KnnArgs, KnnRow>;
  };
  readonly nearestInCell: Statement<[Buffer, bigint, bigint], bigint> | undefined;
}

/** The statements over a version's digest cache and rows by key. */
export interface KeyStatements {
  readonly insertKey: Statement<[bigint, Buffer]>;
  readonly setGone: Statement<[bigint, bigint]>;
  readonly removeVec: Statement<[bigint]>;
  readonly removeKey: Statement<[bigint]>;
  readonly digests: Statement<[string], { key: bigint; digest: Buffer }>;
  readonly byDigest: Statement<[Buffer], bigint>;
  readonly keysBetween: Statement<[bigint, bigint], bigint>;
  readonly countBetween: Statement<[bigint, bigint], number>;
}

/** The statements of `version` that read and write its vectors. */
export function vectorStatements(db: Database.Database, version: VectorVersion): VectorStatements {
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
  const knnStatements = new Map<number, ReturnType<VectorStatements['knnOver']>>();
  const prepareKnn = (cells: number) => ({
    knn: db.prepare<KnnArgs, KnnRow>(knnIn(cells)).safeIntegers(true),
    knnWithin: db.prepare<KnnArgs, KnnRow>(`${knnIn(cells)} AND distance <= ?`).safeIntegers(true),
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
    insertVec(key, vmem, cell, emb, written, gone) {
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
      .prepare<[Buffer, string], KnnRow>(
        `SELECT f.${floats.key} AS key, vec_distance_l2(f.${floats.column}, ?) AS distance
           FROM json_each(?) AS j JOIN ${floats.table} AS f ON f.${floats.key} = j.value`,
      )
      .safeIntegers(true),
    knnOver(cells) {
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
export function keyStatements(db: Database.Database, { key: t }: VectorVersion): KeyStatements {
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
    countBetween: db
      .prepare<[bigint, bigint], number>(`SELECT count(*) FROM ${t}_keys WHERE key BETWEEN ? AND ?`)
      .pluck(),
  };
}
