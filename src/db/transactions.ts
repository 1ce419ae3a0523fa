/**
 * Work in one transaction of a connection, or inside the caller's when one is already open.
 * better-sqlite3 makes several functions for each `db.transaction(fn)`, so a wrapper made per call
 * costs every read microseconds: each connection gets one wrapper, which runs whatever it is given.
 */
import type Database from 'better-sqlite3';

type Runner = Database.Transaction<(work: () => unknown) => unknown>;

const runners = new WeakMap<Database.Database, Runner>();

function runnerOf(db: Database.Database): Runner {
  let runner = runners.get(db);
  if (runner === undefined) {
    runner = db.transaction((work: () => unknown) => work());
    runners.set(db, runner);
  }
  return runner;
}

/** `work` in a read transaction (one snapshot of the file), or inside the caller's. */
export function reading<T>(db: Database.Database, work: () => T): T {
  return db.inTransaction ? work() : (runnerOf(db).deferred(work) as T);
}

/** `work` in a write transaction (the write lock taken first), or inside the caller's. */
export function writing<T>(db: Database.Database, work: () => T): T {
  return db.inTransaction ? work() : (runnerOf(db).immediate(work) as T);
}

/**
 * `db.transaction(fn)`, made at its first call: a handle that may never write (a catch-up's, a
 * reader's) then costs nothing for it.
 */
export function transactionAtFirstCall<A extends unknown[], R>(
  db: Database.Database,
  fn: (...args: A) => R,
): (...args: A) => R {
  let made: ((...args: A) => R) | undefined;
  return (...args) => (made ??= db.transaction(fn))(...args);
}
