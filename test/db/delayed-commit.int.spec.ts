/**
 * DelayedCommit on a real SQLite file: writes join one transaction that commits after the delay
 * (or on `commit()`), a transaction that ended without its commit is reported as lost, and a
 * file another connection commits to is treated as shared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DelayedCommit } from '../../src/db/delayed-commit.js';

let dir: string;
let path: string;
const open: Database.Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-delayed-'));
  path = join(dir, 'derived.db');
  const db = connect();
  db.exec('CREATE TABLE rows (n INTEGER)');
});
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function connect(): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 100');
  open.push(db);
  return db;
}
const count = (db: Database.Database) =>
  db.prepare<[], number>('SELECT count(*) FROM rows').pluck().get();

describe('DelayedCommit', () => {
  it('lets writes join one open transaction that another connection sees only once committed', () => {
    const db = connect();
    const delayed = new DelayedCommit(db, path, 60_000, () => undefined);
    const insert = db.prepare('INSERT INTO rows VALUES (?)');
    for (let n = 0; n < 3; n++) {
      expect(delayed.join()).toBe(true);
      insert.run(n);
    }
    const reader = connect();
    expect(count(reader)).toBe(0);

    delayed.commit();

    expect(count(reader)).toBe(3);
    expect(db.inTransaction).toBe(false);
  });

  it('reports a transaction that ended without its commit as lost, and opens a new one', () => {
    const db = connect();
    let lost = 0;
    const delayed = new DelayedCommit(db, path, 60_000, () => lost++);
    delayed.join();
    db.prepare('INSERT INTO rows VALUES (1)').run();
    db.exec('ROLLBACK'); // as SQLite does on some errors (I/O, disk full)

    expect(delayed.join()).toBe(true);
    expect(lost).toBe(1);
    db.prepare('INSERT INTO rows VALUES (2)').run();
    delayed.commit();
    expect(count(connect())).toBe(1);
  });

  it('commits at once from the moment another connection has committed to the file', () => {
    const db = connect();
    const delayed = new DelayedCommit(db, path, 60_000, () => undefined);
    connect().prepare('INSERT INTO rows VALUES (0)').run();

    expect(delayed.join()).toBe(false);
    expect(db.inTransaction).toBe(false);
  });

  it('says the file is shared once another connection commits to it, never for its own commits, and from then on for good', () => {
    const db = connect();
    const delayed = new DelayedCommit(db, path, 60_000, () => undefined);
    delayed.join();
    db.prepare('INSERT INTO rows VALUES (1)').run();
    delayed.commit();
    db.prepare('INSERT INTO rows VALUES (2)').run(); // a statement committing on its own

    expect(delayed.isShared()).toBe(false);
    connect().prepare('INSERT INTO rows VALUES (3)').run();
    expect(delayed.isShared()).toBe(true);
    expect(delayed.join()).toBe(false);
    expect(delayed.isShared()).toBe(true);
  });

  it('commits the open transaction of another connection of this process before this one writes', () => {
    const first = connect();
    const second = connect();
    const one = new DelayedCommit(first, path, 60_000, () => undefined);
    const two = new DelayedCommit(second, path, 60_000, () => undefined);
    one.join();
    first.prepare('INSERT INTO rows VALUES (1)').run();

    // Without this, `second` would wait for a lock that only this thread could release.
    two.join();
    second.prepare('INSERT INTO rows VALUES (2)').run();
    two.commit();

    expect(first.inTransaction).toBe(false);
    expect(count(connect())).toBe(2);
  });
});
