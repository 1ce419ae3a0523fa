/**
 * Group commit for a SQLite file: the writes asked for in one turn of the event loop share one
 * write transaction, so N concurrent requests cost one commit — one `fsync` under
 * `synchronous=FULL`, one WAL header and one lock round — instead of N, all of it on the main
 * thread. A single caller awaiting each write still gets a transaction of its own. The log's
 * appends (the SQLite store) and the key store's new keys (sealed content) commit this way.
 *
 * What does not change:
 * - Each write runs in its own savepoint (it is a better-sqlite3 transaction function, which
 *   nests as one), so one that fails — a guard error, an id conflict — rolls back alone and the
 *   others of the group still commit.
 * - Every write is acknowledged (its promise settles) only after the shared COMMIT returned: an
 *   acknowledged write is exactly as durable as one committed alone, and a crash before the
 *   commit loses only writes no one was told about.
 * - Order: writes run in the order they were asked for, each seeing those before it.
 * If the transaction itself fails (BEGIN timed out on another process's lock, the COMMIT failed,
 * or an error ended the transaction), nothing of the group is stored and every write of it is
 * rejected with that error.
 */
import type Database from 'better-sqlite3';

interface Pending {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/** Writes to one connection, committed in groups (see the module comment). */
export class CommitGroups {
  private pending: Pending[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly commit: Database.Transaction<(group: readonly Pending[]) => Outcome[]>;

  /** `maxGroup` bounds one transaction, so a flood of writes still commits in steps. */
  constructor(
    db: Database.Database,
    private readonly maxGroup = 128,
  ) {
    this.commit = db.transaction((group: readonly Pending[]) =>
      group.map((item): Outcome => {
        try {
          return { ok: true, value: item.work() };
        } catch (error) {
          // An error SQLite answered by ending the whole transaction (disk full, I/O): the
          // writes before this one went with it, so the group fails as one.
          if (!db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
  }

  /**
   * Runs `work` — a transaction function, so that it is a savepoint of the group's transaction —
   * in the next group and resolves with its result once that group committed.
   */
  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits every write waiting now (its owner calls it before it closes the connection). */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    while (this.pending.length > 0) this.commitNext();
  }

  private commitNext(): void {
    const group = this.pending.splice(0, this.maxGroup);
    let outcomes: Outcome[];
    try {
      outcomes = this.commit.immediate(group);
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
