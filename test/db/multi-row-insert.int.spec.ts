/**
 * Multi-row inserts on a real SQLite database: rows go in order, at most MAX_ROWS_PER_INSERT to a
 * statement, and a row count or row width out of range is refused before anything is written.
 */
import Database from 'better-sqlite3';
import { MAX_ROWS_PER_INSERT, multiRowInsert, RowBuffer } from '../../src/db/multi-row-insert.js';

let db: Database.Database;

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
});
afterEach(() => db.close());

const rows = () =>
  db.prepare<[], [number, string]>('SELECT k, v FROM t ORDER BY rowid').raw().all();

describe('multiRowInsert and RowBuffer', () => {
  it('writes 250 buffered rows in order, in statements of at most 100 rows', () => {
    const insert = multiRowInsert<number | string>(db, 'INSERT INTO t (k, v) VALUES', 2);
    const sizes: number[] = [];
    const counting = Object.assign(
      (n: number) => {
        sizes.push(n);
        return insert(n);
      },
      { columns: insert.columns },
    );
    const buffer = new RowBuffer(counting);
    for (let k = 0; k < 250; k++) buffer.add(k, `row ${k}`);
    buffer.flush();
    buffer.flush(); // nothing waits: no statement

    expect(sizes).toEqual([MAX_ROWS_PER_INSERT, MAX_ROWS_PER_INSERT, 50]);
    expect(rows()).toEqual(Array.from({ length: 250 }, (_, k) => [k, `row ${k}`]));
  });

  it('keeps rows waiting until flushed, so a reader flushes first', () => {
    const buffer = new RowBuffer(
      multiRowInsert<number | string>(db, 'INSERT INTO t (k, v) VALUES', 2),
    );
    buffer.add(1, 'one');
    expect(rows()).toEqual([]);
    buffer.flush();
    expect(rows()).toEqual([[1, 'one']]);
  });

  it('refuses a row count out of 1 to 100 and a row of the wrong width, writing nothing', () => {
    const insert = multiRowInsert<number | string>(db, 'INSERT INTO t (k, v) VALUES', 2);
    expect(() => insert(0)).toThrow(RangeError);
    expect(() => insert(MAX_ROWS_PER_INSERT + 1)).toThrow('1 to 100 rows, not 101');
    expect(() => new RowBuffer(insert).add(1)).toThrow('2 parameters, not 1');
    expect(rows()).toEqual([]);
  });
});
