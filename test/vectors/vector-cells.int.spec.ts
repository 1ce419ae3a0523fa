/**
 * A version with cells on a real SQLite file with sqlite-vec (vector-cells.ts): a memory's rows
 * go to cells named by medoid rows once it holds enough of them; a KNN reads the cells nearest
 * its query, and with every cell probed it finds what a version without cells finds. A cell is
 * never named by a removed row: an erased medoid hands its cell to the nearest other row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { contentDigest } from '../../src/vectors/index.js';
import { ROWS_PER_CELL, defaultProbes } from '../../src/vectors/vector-cells.js';
import {
  NEVER,
  ensureVectorTables,
  registeredVersions,
  rowKey,
  vectorVersion,
  type Quantization,
} from '../../src/vectors/vector-layout.js';
import { seededVector } from '../support/seeded-vectors.js';
import { prepareVectorTable, type VectorTable } from '../../src/vectors/vector-table.js';

const DIMENSIONS = 32;
const CELLS = 4;
let dir = '';
let db: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vector-cells-'));
  db = new Database(join(dir, 'vectors.db'));
  sqliteVec.load(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A seeded unit vector near one of eight centres. */
function vectorOf(seed: number): Float32Array {
  return seededVector({ dimensions: DIMENSIONS, spread: 0.6 }, seed, seed % 8);
}

/** Rows of memory 1 at seqs 0..count-1, every ninth gone three seqs later. */
function fill(table: VectorTable, count: number, from = 0): void {
  db.transaction(() => {
    for (let seq = from; seq < from + count; seq++)
      table.insert({
        key: rowKey(1, seq),
        vmem: 1,
        vector: vectorOf(seq),
        written: seq,
        gone: seq % 9 === 4 ? BigInt(seq + 3) : NEVER,
        digest: contentDigest(`text ${seq}`),
      });
  })();
}

function tableOf(quantization: Quantization, cells: number): VectorTable {
  const version = vectorVersion('test-cells', DIMENSIONS, quantization, cells);
  ensureVectorTables(db, version);
  return prepareVectorTable(db, version);
}

function medoids(table: VectorTable): Map<number, bigint> {
  const rows = db
    .prepare<[string], { cell: number; medoid: bigint }>(
      'SELECT cell, medoid FROM vec_cells WHERE key = ? AND vmem = 1',
    )
    .safeIntegers(true)
    .all(table.version.key);
  return new Map(rows.map((row) => [Number(row.cell), row.medoid]));
}

function cellOfRow(table: VectorTable, key: bigint): number | undefined {
  const cell = db
    .prepare<[bigint], number>(`SELECT cell FROM ${table.version.key}_vec WHERE rowid = ?`)
    .pluck()
    .get(key);
  return cell === undefined ? undefined : Number(cell);
}

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, value, d) => sum + value * b[d]!, 0);
}

const QUERIES = [3, 11, 40, 77, 130].map((seed) => vectorOf(seed + 1000));
const AS_OF = [20, 90, 150, 299];

describe('a version with cells', () => {
  it('keeps every row in cell 0 until the memory holds enough rows per cell, then forms its cells once', () => {
    const table = tableOf('none', CELLS);
    fill(table, CELLS * ROWS_PER_CELL - 1);
    expect(medoids(table).size).toBe(0);
    expect(cellOfRow(table, rowKey(1, 5))).toBe(0);
    fill(table, 1, CELLS * ROWS_PER_CELL - 1);
    expect(medoids(table).size).toBe(CELLS);
    fill(table, 100, CELLS * ROWS_PER_CELL);
    expect(medoids(table).size).toBe(CELLS);
  });

  it('puts every row, those before the cells and those after, in the cell of its nearest medoid', () => {
    const table = tableOf('binary', CELLS);
    fill(table, 300);
    const named = [...medoids(table)];
    for (let seq = 0; seq < 300; seq++) {
      const vector = vectorOf(seq);
      const nearest = named.reduce(
        (best, [cell, medoid]) => {
          const score = dot(vector, vectorOf(Number(medoid % 2n ** 40n)));
          return score > best.score ? { cell, score } : best;
        },
        { cell: -1, score: -Infinity },
      );
      expect(cellOfRow(table, rowKey(1, seq))).toBe(nearest.cell);
    }
  });

  it('with every cell probed, finds what a version without cells finds, as of any seq', () => {
    const celled = tableOf('none', CELLS);
    const plain = tableOf('none', 0);
    fill(celled, 300);
    fill(plain, 300);
    for (const query of QUERIES)
      for (const asOf of AS_OF)
        expect(celled.knn(query, 10, 1, asOf, asOf, CELLS)).toEqual(
          plain.knn(query, 10, 1, asOf, asOf),
        );
  });

  it('with every cell probed and binary vectors, finds the same quantized distances', () => {
    const celled = tableOf('binary', CELLS);
    const plain = tableOf('binary', 0);
    fill(celled, 300);
    fill(plain, 300);
    const distances = (table: VectorTable, query: Float32Array, asOf: number, probes?: number) =>
      table.knn(query, 25, 1, asOf, asOf, probes).map((n) => n.distance);
    for (const query of QUERIES)
      for (const asOf of AS_OF)
        expect(distances(celled, query, asOf, CELLS)).toEqual(distances(plain, query, asOf));
  });

  it('with one cell probed, returns only rows of the cell nearest the query, each visible at the seq', () => {
    const table = tableOf('none', CELLS);
    fill(table, 300);
    const named = [...medoids(table)];
    for (const query of QUERIES) {
      const [nearestCell] = named
        .map(([cell, medoid]) => ({
          cell,
          score: dot(query, vectorOf(Number(medoid % 2n ** 40n))),
        }))
        .sort((a, b) => b.score - a.score);
      const hits = table.knn(query, 50, 1, 150, 150, 1);
      expect(hits.length).toBeGreaterThan(0);
      for (const hit of hits) {
        expect(cellOfRow(table, hit.key)).toBe(nearestCell!.cell);
        const seq = Number(hit.key % 2n ** 40n);
        expect(seq).toBeLessThanOrEqual(150);
        if (seq % 9 === 4) expect(seq + 3).toBeGreaterThan(150);
      }
    }
  });

  it('hands an erased medoid’s cell to the nearest other row of the cell, and keeps finding its rows', () => {
    const table = tableOf('none', CELLS);
    fill(table, 300);
    const [cell, medoid] = [...medoids(table)][1]!;
    const others = Array.from({ length: 300 }, (_, seq) => rowKey(1, seq)).filter(
      (key) => key !== medoid && cellOfRow(table, key) === cell,
    );
    const medoidVector = vectorOf(Number(medoid % 2n ** 40n));
    const nearest = others.reduce((best, key) =>
      dot(vectorOf(Number(key % 2n ** 40n)), medoidVector) >
      dot(vectorOf(Number(best % 2n ** 40n)), medoidVector)
        ? key
        : best,
    );
    db.transaction(() => table.remove(medoid))();
    expect(medoids(table).get(cell)).toBe(nearest);
    expect(cellOfRow(table, medoid)).toBeUndefined();
    const hits = table.knn(medoidVector, 5, 1, 299, 299, CELLS);
    expect(hits.map((hit) => hit.key)).not.toContain(medoid);
    const overall = Array.from({ length: 300 }, (_, seq) => seq)
      .filter((seq) => rowKey(1, seq) !== medoid && !(seq % 9 === 4 && seq + 3 <= 299))
      .sort((a, b) => dot(vectorOf(b), medoidVector) - dot(vectorOf(a), medoidVector));
    expect(hits.map((hit) => hit.key)).toEqual(overall.slice(0, 5).map((seq) => rowKey(1, seq)));
  });

  it('drops a cell whose every row is removed, and searches the others', () => {
    const table = tableOf('binary', CELLS);
    fill(table, 300);
    const [cell] = [...medoids(table)][0]!;
    const members = Array.from({ length: 300 }, (_, seq) => rowKey(1, seq)).filter(
      (key) => cellOfRow(table, key) === cell,
    );
    db.transaction(() => members.forEach((key) => table.remove(key)))();
    expect(medoids(table).has(cell)).toBe(false);
    expect(medoids(table).size).toBe(CELLS - 1);
    const hits = table.knn(QUERIES[0]!, 10, 1, 299, 299, CELLS);
    expect(hits).toHaveLength(10);
    for (const hit of hits) expect(members).not.toContain(hit.key);
  });

  it('is seen by another connection that prepared the table before the cells were formed, and after a cell was dropped', () => {
    const table = tableOf('none', CELLS);
    const other = new Database(join(dir, 'vectors.db'));
    sqliteVec.load(other);
    try {
      const seen = prepareVectorTable(other, table.version);
      expect(seen.knn(QUERIES[0]!, 5, 1, 10, 10, 1)).toEqual([]);
      fill(table, 300);
      const cellsOf = (hits: { key: bigint }[]) =>
        new Set(hits.map((h) => cellOfRow(table, h.key)));
      for (const query of QUERIES)
        expect(cellsOf(seen.knn(query, 40, 1, 299, 299, 1)).size).toBe(1);
      // Its cell emptied here, the other connection no longer probes it: a query at its medoid
      // reads the nearest cell left.
      const [cell, medoid] = [...medoids(table)][0]!;
      const members = Array.from({ length: 300 }, (_, seq) => rowKey(1, seq)).filter(
        (key) => cellOfRow(table, key) === cell,
      );
      db.transaction(() => members.forEach((key) => table.remove(key)))();
      const hits = seen.knn(vectorOf(Number(medoid % 2n ** 40n)), 40, 1, 299, 299, 1);
      expect(hits).toHaveLength(40);
      expect(cellsOf(hits).has(cell)).toBe(false);
    } finally {
      other.close();
    }
  });

  it('registers beside versions of a file written before cells existed, which read as none', () => {
    db.exec(`CREATE TABLE vec_versions (
      key TEXT PRIMARY KEY, model TEXT NOT NULL, dimensions INTEGER NOT NULL,
      quantization TEXT NOT NULL, created_at TEXT NOT NULL) STRICT`);
    const old = vectorVersion('test-cells', DIMENSIONS, 'binary');
    db.prepare('INSERT INTO vec_versions VALUES (?, ?, ?, ?, ?)').run(
      old.key,
      old.model,
      DIMENSIONS,
      'binary',
      '2026-01-01T00:00:00.000Z',
    );
    expect(registeredVersions(db)).toEqual([old]);
    const celled = tableOf('binary', CELLS);
    expect(registeredVersions(db)).toEqual([old, celled.version]);
  });

  it('is another version than the same model without cells, and reads a third of its cells by default', () => {
    expect(vectorVersion('m', 8, 'binary', 256).key).not.toBe(vectorVersion('m', 8, 'binary').key);
    expect(vectorVersion('m', 8, 'binary', 0).key).toBe(vectorVersion('m', 8, 'binary').key);
    expect(defaultProbes(256)).toBe(86);
    expect(defaultProbes(64)).toBe(22);
    expect(defaultProbes(4)).toBe(2);
    expect(defaultProbes(2)).toBe(1);
  });
});
