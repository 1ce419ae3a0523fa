/**
 * The point a binary version takes its sign bits around. Sentence vectors share a large common
 * direction, so around zero many dimensions hold the same bit for almost every item and the
 * Hamming distance tells little apart; around the items' mean each bit splits them about evenly
 * (on real-text notes, more of the exact top 10 among the same candidates: BENCHMARKS.md).
 *
 * The centre is the mean of a version's first {@link CENTRE_SAMPLE} vectors, fixed once and kept
 * in `vec_centres`: the bits of every row and every query are taken around the same point. Rows
 * written before it was fixed (bits around zero) are quantized again when it is, in the same
 * transaction. Re-scoring uses the float vectors, so the centre changes which rows are
 * candidates, never their order.
 *
 * It is a mean of content, and an Erasure removes an item's vectors, not its share of the mean
 * (nor can it: every row's bits pin the centre down). So the mean gets Gaussian noise, drawn once
 * and never kept, that makes it differentially private for any one item ({@link PRIVACY}): from
 * the centre and every other vector, an erased item's vector comes out buried in noise hundreds of
 * times its length.
 */
import { randomFillSync } from 'node:crypto';
import type Database from 'better-sqlite3';
import { vectorBytes, vectorOfBytes, type VectorVersion } from './vector-layout.js';

/**
 * Vectors averaged into a version's centre: enough that the privacy noise stays a small part of
 * how the items spread (a mean of 1,000 notes was as good as all 100 k's).
 */
export const CENTRE_SAMPLE = 4096;

/**
 * (ε, δ) of the centre with respect to one item's vector, by the Gaussian mechanism (Dwork and
 * Roth, The Algorithmic Foundations of Differential Privacy, theorem A.1; ε < 1).
 */
export const PRIVACY = { epsilon: 0.5, delta: 1e-9 } as const;

/**
 * The noise's standard deviation per coordinate for a mean of `count` unit vectors: one item
 * replaced moves the mean by at most 2 / count (L2).
 */
export function centreNoise(count: number): number {
  const { epsilon, delta } = PRIVACY;
  return ((2 / count) * Math.sqrt(2 * Math.log(1.25 / delta))) / epsilon;
}

/** The centre of one binary version. */
export interface BinaryCentre {
  /** `vector` as its sign bits are taken: minus the centre once it is fixed. */
  centred(vector: Float32Array): Float32Array;
  /**
   * After a row was inserted (inside the caller's transaction): fixes the centre once the
   * version holds {@link CENTRE_SAMPLE} rows, and hands `requantize` each row's vector around it.
   */
  afterInsert(requantize: Requantize): void;
}

/** Writes the searched (quantized) vector of the row at `key` again, from `centred`. */
export type Requantize = (key: bigint, centred: Float32Array) => void;

/** The centre of `version`, a binary version of the current layout, on `db`. */
export function prepareBinaryCentre(db: Database.Database, version: VectorVersion): BinaryCentre {
  const { key: t } = version;
  const read = db.prepare<[string], Buffer>('SELECT centre FROM vec_centres WHERE key = ?').pluck();
  const rows = db
    .prepare<[], number>(`SELECT count(*) FROM (SELECT 1 FROM ${t}_keys LIMIT ${CENTRE_SAMPLE})`)
    .pluck();
  // Another connection may fix it: read until one has, then keep it (it never changes).
  let fixed: Float32Array | undefined;
  let counted: number | undefined;
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
    afterInsert(requantize) {
      if (centre()) return;
      // Counted here, and read again only at the sample: other connections' inserts and erased
      // rows make the count drift, which only moves the moment the centre is fixed.
      counted = counted === undefined ? rows.get()! : counted + 1;
      if (counted < CENTRE_SAMPLE) return;
      counted = rows.get()!;
      if (counted >= CENTRE_SAMPLE) fixed = fixCentre(db, version, requantize);
    },
  };
}

/**
 * Averages the version's float vectors, keeps the mean (with its noise) and quantizes every row
 * around it: one transaction (a savepoint inside the caller's), so the centre and the rows' bits
 * go together.
 */
function fixCentre(
  db: Database.Database,
  { key: t, dimensions }: VectorVersion,
  requantize: Requantize,
): Float32Array {
  const floats = db
    .prepare<[], { key: bigint; v: Buffer }>(`SELECT rowid AS key, v FROM ${t}_floats`)
    .safeIntegers(true)
    .all()
    .map(({ key, v }) => ({ key, vector: vectorOfBytes(v) }));
  const sum = new Float64Array(dimensions);
  for (const { vector } of floats) vector.forEach((value, d) => (sum[d]! += value));
  const noise = gaussians(dimensions, centreNoise(floats.length));
  const centre = Float32Array.from(sum, (total, d) => total / floats.length + noise[d]!);
  db.transaction(() => {
    db.prepare('INSERT INTO vec_centres (key, centre, sample) VALUES (?, ?, ?)').run(
      t,
      vectorBytes(centre),
      floats.length,
    );
    for (const { key, vector } of floats)
      requantize(
        key,
        vector.map((value, d) => value - centre[d]!),
      );
  })();
  return centre;
}

/** `count` draws of a normal distribution of deviation `sigma` (Box-Muller, from node:crypto). */
function gaussians(count: number, sigma: number): Float64Array {
  const uniform = randomFillSync(new Uint32Array(2 * count));
  // (0, 1]: the logarithm needs it above zero.
  const at = (i: number) => (uniform[i]! + 1) / 2 ** 32;
  return Float64Array.from(
    { length: count },
    (_, i) => sigma * Math.sqrt(-2 * Math.log(at(2 * i))) * Math.cos(2 * Math.PI * at(2 * i + 1)),
  );
}
