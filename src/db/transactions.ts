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

/**
 * The rollbacks of one connection's transactions and savepoints, counted so that what the process
 * remembers of the file is forgotten when a write it remembers may have been undone
 * ({@link AssignedKeys}).
 */
interface RollbackCount {
  n: number;
}

const rollbackCounts = new WeakMap<Database.Database, RollbackCount>();

function rollbackCountOf(db: Database.Database): RollbackCount {
  let count = rollbackCounts.get(db);
  if (count === undefined) rollbackCounts.set(db, (count = { n: 0 }));
  return count;
}

/** Records a rollback `db`'s transaction functions did not see (a transaction begun by hand). */
export function noteRollback(db: Database.Database): void {
  rollbackCountOf(db).n++;
}

type TransactionFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Makes every transaction function of `db` count its rollbacks: better-sqlite3 rolls a
 * transaction (or, nested, a savepoint) back whenever its function throws, a failed COMMIT
 * included. Called once, where connections are opened (src/db/better-sqlite3.ts), so that no
 * transaction of the process's own connections is left out.
 */
export function countRollbacks(db: Database.Database): void {
  const count = rollbackCountOf(db);
  const make = db.transaction.bind(db);
  const counted = (run: TransactionFunction): TransactionFunction =>
    function (this: unknown, ...args) {
      try {
        return run.apply(this, args);
      } catch (error) {
        count.n++;
        throw error;
      }
    };
  db.transaction = ((fn: TransactionFunction) => {
    const made = make(fn) as unknown as Record<string, TransactionFunction> & TransactionFunction;
    return Object.assign(counted(made), {
      default: counted(made.default!),
      deferred: counted(made.deferred!),
      immediate: counted(made.immediate!),
      exclusive: counted(made.exclusive!),
    });
  }) as typeof db.transaction;
}

/**
 * Keys the file gave (a memory id's integer key), remembered by the process: a key never changes
 * once committed, but one given in a transaction or savepoint that then rolled back is gone from
 * the file, and the next memory to ask may be given its number. So every rollback of the
 * connection makes the cache forget all it holds, and the keys are read again.
 */
export class AssignedKeys<K, V> {
  private readonly byKey = new Map<K, V>();
  private readonly rollbacks: RollbackCount;
  private seen: number;

  constructor(db: Database.Database) {
    this.rollbacks = rollbackCountOf(db);
    this.seen = this.rollbacks.n;
  }

  /** The value remembered for `key`, else the one `find` reads, remembered when there is one. */
  of(key: K, find: () => V | undefined): V | undefined {
    if (this.rollbacks.n !== this.seen) {
      this.byKey.clear();
      this.seen = this.rollbacks.n;
    }
    let value = this.byKey.get(key);
    if (value === undefined) {
      value = find();
      if (value !== undefined) this.byKey.set(key, value);
    }
    return value;
  }
}
