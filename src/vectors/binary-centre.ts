/**
 * The point a binary version takes its sign bits around. Sentence vectors share a large common
 * direction, so around zero many dimensions hold the same bit for almost every item and the
 * Hamming distance tells little apart; around the items' mean each bit splits them about evenly.
 * On real-text notes (GloVe, 100 k notes) this kept 0.90 of the exact top 10 among 400 re-scored
 * candidates instead of 0.78, and it changed nothing on vectors already centred (BENCHMARKS.md).
 *
 * The centre is the mean of a version's first {@link CENTRE_SAMPLE} vectors, fixed once and kept
 * in `vec_centres`: the bits of every row and every query are taken around the same point. Rows
 * written before it was fixed (bits around zero) are quantized again when it is, in the same
 * transaction. Re-scoring uses the float vectors, so the centre changes which rows are
 * candidates, never their order.
 */
import type Database from 'better-sqlite3';
import { vectorBytes, vectorOfBytes, type VectorVersion } from './vector-layout.js';

/** Vectors averaged into a version's centre: a mean of 256 notes is within 0.996 of all 100 k's. */
export const CENTRE_SAMPLE = 256;

/** The centre of one binary version. */
export interface BinaryCentre {
  /** `vector` as its sign bits are taken: minus the centre once it is fixed. */
  centred(vector: Float32Array): Float32Array;
  /**
   * After a row was inserted (inside the caller's transaction): fixes the centre once the
   * version holds {@link CENTRE_SAMPLE} rows and quantizes the rows before it again.
   */
  afterInsert(): void;
}

/** The centre of `version`, a binary version of the current layout, on `db`. */
export function prepareBinaryCentre(db: Database.Database, version: VectorVersion): BinaryCentre {
  const { key: t } = version;
  const read = db.prepare<[string], Buffer>('SELECT centre FROM vec_centres WHERE key = ?').pluck();
  const rows = db.prepare<[], number>(`SELECT count(*) FROM ${t}_keys`).pluck();
  // Another connection may fix it: read until one has, then keep it (it never changes).
  let fixed: Float32Array | undefined;
  const centre = () => {
    if (fixed) return fixed;
    const bytes = read.get(t);
    if (bytes) fixed = vectorOfBytes(bytes);
    return fixed;
  };
  return {
    centred(vector) {
      const point = centre();
      return point ? vector.map((value, d) => value - point[d]!) : vector;
    },
    afterInsert() {
      if (centre() || rows.get()! < CENTRE_SAMPLE) return;
      fixed = fixCentre(db, version);
    },
  };
}

/** Averages the version's float vectors, keeps the mean and quantizes every row around it. */
function fixCentre(db: Database.Database, { key: t, dimensions }: VectorVersion): Float32Array {
  const floats = db
    .prepare<[], { key: bigint; v: Buffer }>(`SELECT rowid AS key, v FROM ${t}_floats`)
    .safeIntegers(true)
    .all();
  const sum = new Float64Array(dimensions);
  for (const { v } of floats) vectorOfBytes(v).forEach((value, d) => (sum[d]! += value));
  const centre = Float32Array.from(sum, (total) => total / floats.length);
  db.prepare('INSERT INTO vec_centres (key, centre, sample) VALUES (?, ?, ?)').run(
    t,
    vectorBytes(centre),
    floats.length,
  );
  // vec0 takes a bit vector only from vec_quantize_binary() itself, which an UPDATE's value
  // does not keep the type of: each row is written again.
  const row = db
    .prepare<[bigint], { vmem: bigint; written: bigint; gone: bigint }>(
      `SELECT vmem, written, gone FROM ${t}_vec WHERE rowid = ?`,
    )
    .safeIntegers(true);
  const remove = db.prepare<[bigint]>(`DELETE FROM ${t}_vec WHERE rowid = ?`);
  const insert = db.prepare<[bigint, bigint, Buffer, bigint, bigint]>(
    `INSERT INTO ${t}_vec (rowid, vmem, emb, written, gone)
     VALUES (?, ?, vec_quantize_binary(?), ?, ?)`,
  );
  for (const { key, v } of floats) {
    const { vmem, written, gone } = row.get(key)!;
    remove.run(key);
    insert.run(
      key,
      vmem,
      vectorBytes(vectorOfBytes(v).map((value, d) => value - centre[d]!)),
      written,
      gone,
    );
  }
  return centre;
}
