/**
 * One version's table on a real SQLite file with sqlite-vec: a quantized version's KNN, which
 * passes a learned distance bound to vec0, returns what an unbounded KNN returns however narrow
 * or wide the bound its earlier searches taught it; candidates are re-scored with the float
 * vectors read by key from a table of small chunks beside the searched one, which go with the row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { CENTRE_SAMPLE, centreNoise } from '../../src/vectors/binary-centre.js';
import type { ItemWindows } from '../../src/vectors/item-windows.js';
import { searchVectors } from '../../src/vectors/vector-search.js';
import { contentDigest, unitVector } from '../../src/vectors/index.js';
import {
  NEVER,
  ensureVectorTables,
  rowKey,
  vectorBytes,
  vectorOfBytes,
  vectorVersion,
  type Quantization,
} from '../../src/vectors/vector-layout.js';
import { seededVector } from '../support/seeded-vectors.js';
import { prepareVectorTable, type VectorTable } from '../../src/vectors/vector-table.js';

const DIMENSIONS = 64;
let dir = '';
let db: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-table-'));
  db = new Database(join(dir, 'vectors.db'));
  sqliteVec.load(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A seeded unit vector near one of a few centres (dense, like a model's). */
function vectorOf(seed: number, centre = seed % 5): Float32Array {
  return seededVector({ dimensions: DIMENSIONS, spread: 0.8 }, seed, centre);
}

/**
 * A table of `quantization` holding `count` rows of memory 1, written at seqs 0..count-1, with
 * the vectors of `vectors` (`vectorOf` by default).
 */
function tableWith(
  quantization: Quantization,
  count: number,
  vectors: (seq: number) => Float32Array = vectorOf,
  on = db,
): VectorTable {
  const version = vectorVersion('test-dense', DIMENSIONS, quantization);
  ensureVectorTables(on, version);
  const table = prepareVectorTable(on, version);
  on.transaction(() => {
    for (let seq = 0; seq < count; seq++)
      table.insert({
        key: rowKey(1, seq),
        vmem: 1,
        vector: vectors(seq),
        written: seq,
        gone: seq % 9 === 4 ? BigInt(seq + 3) : NEVER,
        digest: contentDigest(`text ${seq}`),
      });
  })();
  return table;
}

/** A binary version's centre, once fixed (binary-centre.ts). */
function centreOf(table: VectorTable): { centre: Float32Array; sample: number } | undefined {
  const row = db
    .prepare<[string], { centre: Buffer; sample: number }>(
      'SELECT centre, sample FROM vec_centres WHERE key = ?',
    )
    .get(table.version.key);
  return row && { centre: vectorOfBytes(row.centre), sample: row.sample };
}

/** `vector` minus `centre`. */
const minus = (vector: Float32Array, centre: Float32Array) =>
  vector.map((value, d) => value - centre[d]!);

/** vec0's KNN with no bound, straight from the table (a binary query around its centre). */
function unbounded(table: VectorTable, query: Float32Array, k: number, asOf: number) {
  const { key, quantization } = table.version;
  const quantize =
    quantization === 'int8' ? "vec_quantize_int8(?, 'unit')" : 'vec_quantize_binary(?)';
  const centre = quantization === 'binary' ? centreOf(table)?.centre : undefined;
  return db
    .prepare<[Buffer, number, number, number], { distance: number }>(
      `SELECT distance FROM ${key}_vec WHERE emb MATCH ${quantize} AND k = ? AND vmem = 1
        AND written <= ? AND gone > ?`,
    )
    .all(vectorBytes(centre ? minus(query, centre) : query), k, asOf, asOf)
    .map((row) => row.distance);
}

describe.each<Quantization>(['binary', 'int8'])('a %s version', (quantization) => {
  it('returns the unbounded KNN after its searches taught it a narrow bound, and after a wide one', () => {
    const table = tableWith(quantization, 600);
    const near = vectorOf(10_000, 2);
    const far = unitVector(vectorOf(20_000, 3).map((v, d) => (d % 2 ? -v : v)));
    for (const [query, asOf] of [
      [near, 599],
      [near, 599],
      [far, 599],
      [near, 40],
      [far, 599],
      [near, 599],
    ] as const) {
      for (const k of [5, 100]) {
        const got = table.knn(query, k, 1, asOf, asOf).map((n) => n.distance);
        expect(got).toEqual(unbounded(table, query, k, asOf));
        expect(got).toHaveLength(Math.min(k, unbounded(table, query, 1000, asOf).length));
      }
    }
  });

  it('re-scores candidates with their float vectors read by key, which go with the row', () => {
    const table = tableWith(quantization, 30);
    const query = vectorOf(77);
    const exact = table.exact(query, [rowKey(1, 3), rowKey(1, 11), rowKey(1, 999)]);
    expect([...exact.keys()]).toEqual([rowKey(1, 3), rowKey(1, 11)]);
    for (const seq of [3, 11]) {
      const v = vectorOf(seq);
      const l2 = Math.hypot(...v.map((x, d) => x - query[d]!));
      expect(exact.get(rowKey(1, seq))).toBeCloseTo(l2, 5);
    }
    expect(table.cached(contentDigest('text 3'))).toEqual(vectorOf(3));
    const floatsHeld = (seq: number) =>
      db
        .prepare(`SELECT count(*) FROM ${table.version.key}_floats WHERE rowid = ?`)
        .pluck()
        .get(rowKey(1, seq));
    expect(floatsHeld(3)).toBe(1);
    expect(table.remove(rowKey(1, 3))).toBe(true);
    expect(floatsHeld(3)).toBe(0);
    expect(table.exact(query, [rowKey(1, 3)]).size).toBe(0);
    expect(table.cached(contentDigest('text 3'))).toBeUndefined();
  });
});

describe('a binary version’s centre', () => {
  /** Every vector near one shared direction, as sentence models' are: every coordinate > 0. */
  const made = new Map<number, Float32Array>();
  const shared = (seed: number) => {
    let vector = made.get(seed);
    if (!vector)
      made.set(
        seed,
        (vector = unitVector(vectorOf(seed).map((value) => value + 3 / Math.sqrt(DIMENSIONS)))),
      );
    return vector;
  };

  /** The centre a table of `shared` vectors at `seqs` would have without its noise. */
  const meanOf = (seqs: readonly number[]) =>
    Float32Array.from(
      { length: DIMENSIONS },
      (_, d) => seqs.reduce((sum, seq) => sum + shared(seq)[d]!, 0) / seqs.length,
    );

  it('is the mean of its first vectors with privacy noise, and the rows written before it are quantized around it too', () => {
    const table = tableWith('binary', CENTRE_SAMPLE - 1, shared);
    expect(centreOf(table)).toBeUndefined();
    const late = CENTRE_SAMPLE + 1000;
    db.transaction(() =>
      table.insert({
        key: rowKey(1, late),
        vmem: 1,
        vector: shared(late),
        written: late,
        gone: NEVER,
        digest: contentDigest(`text ${late}`),
      }),
    )();
    const { centre, sample } = centreOf(table)!;
    expect(sample).toBe(CENTRE_SAMPLE);
    const mean = meanOf([...Array(CENTRE_SAMPLE - 1).keys(), late]);
    const sigma = centreNoise(CENTRE_SAMPLE);
    const offsets = centre.map((value, d) => value - mean[d]!);
    // Noise there is, of the deviation the privacy needs (64 draws: within 5 sigma, and not all
    // within a tenth of it).
    expect(Math.max(...offsets.map(Math.abs))).toBeLessThan(5 * sigma);
    expect(Math.max(...offsets.map(Math.abs))).toBeGreaterThan(sigma / 10);
    const bits = (seq: number) =>
      db
        .prepare(`SELECT emb FROM ${table.version.key}_vec WHERE rowid = ?`)
        .pluck()
        .get(rowKey(1, seq));
    const around = (vector: Float32Array, point: Float32Array) =>
      db
        .prepare('SELECT vec_quantize_binary(?)')
        .pluck()
        .get(vectorBytes(minus(vector, point)));
    for (const seq of [0, 17, late]) expect(bits(seq)).toEqual(around(shared(seq), centre));
    expect(around(shared(17), centre)).not.toEqual(
      around(shared(17), new Float32Array(DIMENSIONS)),
    );
  });

  it('is drawn again for the same vectors in another file: nothing of the noise is kept', () => {
    const first = centreOf(tableWith('binary', CENTRE_SAMPLE, shared))!.centre;
    const again = new Database(join(dir, 'again.db'));
    sqliteVec.load(again);
    try {
      const table = tableWith('binary', CENTRE_SAMPLE, shared, again);
      const second = vectorOfBytes(
        again
          .prepare<[string], Buffer>('SELECT centre FROM vec_centres WHERE key = ?')
          .pluck()
          .get(table.version.key)!,
      );
      expect(second).not.toEqual(first);
      const mean = meanOf([...Array(CENTRE_SAMPLE).keys()]);
      for (const centre of [first, second])
        centre.forEach((value, d) =>
          expect(Math.abs(value - mean[d]!)).toBeLessThan(6 * centreNoise(CENTRE_SAMPLE)),
        );
    } finally {
      again.close();
    }
  });

  it('does not give back an erased item’s vector: the mean less every other vector is noise', () => {
    const table = tableWith('binary', CENTRE_SAMPLE, shared);
    const { centre } = centreOf(table)!;
    expect(table.remove(rowKey(1, 17))).toBe(true);
    const others = [...Array(CENTRE_SAMPLE).keys()].filter((seq) => seq !== 17);
    // What an attacker holding the file computes: the sample's sum less the vectors still there.
    const estimate = centre.map(
      (value, d) => CENTRE_SAMPLE * value - others.reduce((sum, seq) => sum + shared(seq)[d]!, 0),
    );
    // Without the noise it would be the erased vector itself (distance 0, length 1).
    expect(Math.hypot(...minus(estimate, shared(17)))).toBeGreaterThan(50);
  });

  it('finds near neighbours that sign bits around zero cannot tell apart', () => {
    const count = CENTRE_SAMPLE + 1000;
    const head = count - 1;
    const table = tableWith('binary', count, shared);
    // Around zero every row's bits are all ones: the 100 candidates would be any 100 rows.
    const zero = db
      .prepare('SELECT vec_quantize_binary(?)')
      .pluck()
      .get(vectorBytes(shared(5)));
    expect(zero).toEqual(Buffer.alloc(DIMENSIONS / 8, 0xff));
    let found = 0;
    const queries = Array.from({ length: 20 }, (_, i) => shared(50_000 + i));
    for (const query of queries) {
      const candidates = table.knn(query, 100, 1, head, head).map((n) => n.key);
      const exact = [...table.exact(query, candidates)].sort((a, b) => a[1] - b[1]);
      const top = exact.slice(0, 10).map(([key]) => key);
      const all = [...Array(count).keys()].filter((seq) => seq % 9 !== 4 || seq + 3 > head);
      const truth = all
        .map((seq) => ({ key: rowKey(1, seq), d: Math.hypot(...minus(shared(seq), query)) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, 10)
        .map(({ key }) => key);
      found += top.filter((key) => truth.includes(key)).length;
    }
    // 64 bits of noise around five clusters: ~0.45 of the exact top 10 (~0.03 around zero).
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.3);
  });

  it('is seen by another connection to the file that prepared the table before it was fixed', () => {
    const other = new Database(join(dir, 'vectors.db'));
    sqliteVec.load(other);
    try {
      const version = vectorVersion('test-dense', DIMENSIONS, 'binary');
      ensureVectorTables(other, version);
      const early = prepareVectorTable(other, version);
      const count = CENTRE_SAMPLE + 100;
      const table = tableWith('binary', count, shared);
      expect(centreOf(table)).toBeDefined();
      const query = shared(70_000);
      expect(early.knn(query, 20, 1, count - 1, count - 1)).toEqual(
        table.knn(query, 20, 1, count - 1, count - 1),
      );
    } finally {
      other.close();
    }
  });
});

describe('a search’s candidates', () => {
  /** How many candidates `searchVectors` asked the KNN of `table` for, at each search. */
  const asked = (table: VectorTable) => {
    const ks: number[] = [];
    const counting: VectorTable = {
      ...table,
      knn: (query, k, ...rest) => (ks.push(k), table.knn(query, k, ...rest)),
    };
    // Every row is visible here: this is about the KNN's k, not windows.
    const windows = {
      visibleAt: (_mem: number, seqs: readonly number[]) =>
        new Map(seqs.map((seq) => [seq, { id: `item-${seq}`, kind: 'document' as const, seq }])),
    } as unknown as ItemWindows;
    const search = (limit: number, oversample: number) =>
      searchVectors({ table: counting, windows, mem: 1, vmem: 1, through: 599 }, vectorOf(9), {
        asOfSeq: 599,
        limit,
        config: { oversample },
      });
    return { ks, search };
  };

  it('are limit × oversample for a quantized version, at least 100, and re-scored down to the limit', () => {
    const { ks, search } = asked(tableWith('binary', 600));
    expect(search(10, 4)).toHaveLength(10);
    expect(search(100, 4)).toHaveLength(100);
    expect(search(100, 8)).toHaveLength(100);
    expect(search(50, 1)).toHaveLength(50);
    expect(ks).toEqual([100, 400, 800, 100]);
  });

  it('are the limit itself for a float version, whatever the oversampling', () => {
    const { ks, search } = asked(tableWith('none', 200));
    search(10, 8);
    expect(ks).toEqual([10]);
  });
});

describe('a float version', () => {
  it('re-scores from the searched column', () => {
    const table = tableWith('none', 20);
    const query = vectorOf(5);
    expect(table.exact(query, [rowKey(1, 5)]).get(rowKey(1, 5))).toBeCloseTo(0, 5);
    expect(table.exact(query, [rowKey(1, 6)]).get(rowKey(1, 6))).toBeCloseTo(
      Math.hypot(...vectorOf(6).map((x, d) => x - query[d]!)),
      5,
    );
  });
});

describe('a quantized version of layout 1 (floats in a column of the searched table)', () => {
  it('opens, hands its floats to the cache and removes its rows', () => {
    const key = 'vec_00000000000000aa';
    db.exec(`CREATE VIRTUAL TABLE ${key}_vec USING vec0(vmem integer partition key,
      emb bit[${DIMENSIONS}], exact float[${DIMENSIONS}], written integer, gone integer)`);
    db.exec(`CREATE TABLE ${key}_keys (key INTEGER PRIMARY KEY, digest BLOB NOT NULL) STRICT`);
    const bytes = vectorBytes(vectorOf(1));
    db.prepare(
      `INSERT INTO ${key}_vec (rowid, vmem, emb, exact, written, gone)
       VALUES (?, 1, vec_quantize_binary(?), ?, 0, ?)`,
    ).run(rowKey(1, 0), bytes, bytes, NEVER);
    db.prepare(`INSERT INTO ${key}_keys VALUES (?, ?)`).run(rowKey(1, 0), contentDigest('one'));
    const old = prepareVectorTable(db, {
      key,
      model: 'test-dense',
      dimensions: DIMENSIONS,
      quantization: 'binary',
      cells: 0,
    });
    expect(old.stored(contentDigest('one'))).toEqual(vectorOf(1));
    expect(old.exact(vectorOf(1), [rowKey(1, 0)]).get(rowKey(1, 0))).toBeCloseTo(0, 5);
    expect(old.remove(rowKey(1, 0))).toBe(true);
    expect(old.stored(contentDigest('one'))).toBeUndefined();
  });
});
