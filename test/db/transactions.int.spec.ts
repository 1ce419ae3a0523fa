/**
 * `reading` and `writing` (src/db/transactions.ts): work in one transaction of its own, or inside
 * the caller's, with one wrapper per connection that runs whatever work it is given;
 * `transactionAtFirstCall`, a transaction function made when it is first called; and
 * `AssignedKeys`, which forgets what it holds when a transaction of its connection rolls back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openConnection } from '../../src/db/better-sqlite3.js';
import {
  AssignedKeys,
  noteRollback,
  reading,
  transactionAtFirstCall,
  writing,
} from '../../src/db/transactions.js';

let dir: string;
let db: Database.Database;
let other: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-transactions-'));
  const path = join(dir, 'file.db');
  db = openConnection(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (n INTEGER)');
  other = openConnection(path);
});
afterEach(() => {
  other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = (on: Database.Database) =>
  on.prepare<[], number>('SELECT count(*) FROM t').pluck().get()!;

describe('work in a transaction of its own or the caller’s', () => {
  it('reads one snapshot: another connection’s commit meanwhile is not seen', () => {
    const seen = reading(db, () => {
      const before = count(db);
      other.prepare('INSERT INTO t VALUES (1)').run();
      return [before, count(db), db.inTransaction];
    });
    expect(seen).toEqual([0, 0, true]);
    expect(count(db)).toBe(1);
  });

  it('writes under the write lock and rolls everything back when the work throws', () => {
    writing(db, () => db.prepare('INSERT INTO t VALUES (1)').run());
    expect(() =>
      writing(db, () => {
        db.prepare('INSERT INTO t VALUES (2)').run();
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(count(other)).toBe(1);
  });

  it('runs inside the caller’s transaction when one is open, so the caller’s rollback takes it too', () => {
    const outer = db.transaction(() => {
      writing(db, () => db.prepare('INSERT INTO t VALUES (1)').run());
      expect(reading(db, () => count(db))).toBe(1);
      throw new Error('the caller gives up');
    });
    expect(() => outer.immediate()).toThrow('the caller gives up');
    expect(count(db)).toBe(0);
  });

  it('gives each call its own work through the one wrapper of a connection', () => {
    expect([reading(db, () => 'a'), reading(db, () => 'b'), writing(db, () => 'c')]).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('runs a function made at its first call as a transaction: its arguments, its result, its rollback', () => {
    const insert = transactionAtFirstCall(db, (n: number, fail: boolean) => {
      db.prepare('INSERT INTO t VALUES (?)').run(n);
      if (fail) throw new Error(`refused ${n}`);
      return db.inTransaction;
    });
    expect(insert(1, false)).toBe(true);
    expect(() => insert(2, true)).toThrow('refused 2');
    expect(db.prepare<[], number>('SELECT n FROM t').pluck().all()).toEqual([1]);
  });
});

describe('keys remembered across transactions', () => {
  it('keeps what a committed transaction set', () => {
    const keys = new AssignedKeys<string, number>(db);
    writing(db, () => keys.of('m', () => 1));
    expect(keys.of('m', () => undefined)).toBe(1);
  });

  it('forgets everything once a transaction of the connection rolled back', () => {
    const keys = new AssignedKeys<string, number>(db);
    keys.of('kept until now', () => 1);
    expect(() =>
      writing(db, () => {
        keys.of('m', () => 2);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(keys.of('m', () => undefined)).toBeUndefined();
    expect(keys.of('kept until now', () => undefined)).toBeUndefined();
  });

  it('forgets on a savepoint rolled back inside a transaction that commits', () => {
    const keys = new AssignedKeys<string, number>(db);
    const nested = db.transaction(() => {
      keys.of('m', () => 1);
      throw new Error('savepoint rolled back');
    });
    writing(db, () => expect(() => nested()).toThrow('savepoint rolled back'));
    expect(keys.of('m', () => undefined)).toBeUndefined();
  });

  it('forgets on a rollback of a transaction begun by hand, once noted', () => {
    const keys = new AssignedKeys<string, number>(db);
    keys.of('m', () => 1);
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    noteRollback(db);
    expect(keys.of('m', () => undefined)).toBeUndefined();
  });

  it("forgets nothing for another connection's rollback", () => {
    const keys = new AssignedKeys<string, number>(db);
    keys.of('m', () => 1);
    expect(() =>
      writing(other, () => {
        throw new Error('rolled back elsewhere');
      }),
    ).toThrow('rolled back elsewhere');
    expect(keys.of('m', () => undefined)).toBe(1);
  });
});
