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
import { contentDigest, unitVector } from '../../src/vectors/index.js';
import {
  NEVER,
  ensureVectorTables,
  rowKey,
  vectorVersion,
  type Quantization,
} from '../../src/vectors/vector-layout.js';
import {
  prepareVectorTable,
  vectorBytes,
  type VectorTable,
} from '../../src/vectors/vector-table.js';

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
  let state = seed * 7919 + 17;
  const next = () => ((state = (state * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const base = (d: number) => Math.sin((centre + 1) * (d + 1) * 0.7);
  return unitVector(Float32Array.from({ length: DIMENSIONS }, (_, d) => base(d) + 0.8 * next()));
}

/** A table of `quantization` holding `count` rows of memory 1, written at seqs 0..count-1. */
function tableWith(quantization: Quantization, count: number): VectorTable {
  const version = vectorVersion('test-dense', DIMENSIONS, quantization);
  ensureVectorTables(db, version);
  const table = prepareVectorTable(db, version);
  db.transaction(() => {
    for (let seq = 0; seq < count; seq++)
      table.insert({
        key: rowKey(1, seq),
        vmem: 1,
        vector: vectorOf(seq),
        written: seq,
        gone: seq % 9 === 4 ? BigInt(seq + 3) : NEVER,
        digest: contentDigest(`text ${seq}`),
      });
  })();
  return table;
}

/** vec0's KNN with no bound, straight from the table. */
function unbounded(table: VectorTable, query: Float32Array, k: number, asOf: number) {
  const { key, quantization } = table.version;
  const quantize =
    quantization === 'int8' ? "vec_quantize_int8(?, 'unit')" : 'vec_quantize_binary(?)';
  return db
    .prepare<[Buffer, number, number, number], { distance: number }>(
      `SELECT distance FROM ${key}_vec WHERE emb MATCH ${quantize} AND k = ? AND vmem = 1
        AND written <= ? AND gone > ?`,
    )
    .all(vectorBytes(query), k, asOf, asOf)
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
    });
    expect(old.stored(contentDigest('one'))).toEqual(vectorOf(1));
    expect(old.exact(vectorOf(1), [rowKey(1, 0)]).get(rowKey(1, 0))).toBeCloseTo(0, 5);
    expect(old.remove(rowKey(1, 0))).toBe(true);
    expect(old.stored(contentDigest('one'))).toBeUndefined();
  });
});
