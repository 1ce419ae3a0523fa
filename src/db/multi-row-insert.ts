/**
 * Inserts of many rows in one statement. better-sqlite3 runs one statement per call, and a call
 * costs more than a row's own B-tree work, so the writers that insert rows in bursts put up to
 * {@link MAX_ROWS_PER_INSERT} in one `VALUES` list.
 */
import type Database from 'better-sqlite3';

/**
 * Most rows one statement inserts: at most 8 parameters a row here, so ~800 parameters, far under
 * SQLite's limit of 32,766.
 */
export const MAX_ROWS_PER_INSERT = 100;

/**
 * The statement that inserts `n` rows (1 to {@link MAX_ROWS_PER_INSERT}): each row's parameters in
 * turn, `columns` of them a row.
 */
export type MultiRowInsert<P> = ((n: number) => Database.Statement<P[]>) & {
  readonly columns: number;
};

/**
 * `head` is the statement up to `VALUES` (e.g. `INSERT INTO t (a, b) VALUES`); each row has
 * `columns` parameters. Statements are prepared once per row count, when first asked for.
 */
export function multiRowInsert<P>(
  db: Database.Database,
  head: string,
  columns: number,
): MultiRowInsert<P> {
  const row = `(${Array<string>(columns).fill('?').join(', ')})`;
  const prepared = new Map<number, Database.Statement<P[]>>();
  const insert = (n: number) => {
    let statement = prepared.get(n);
    if (statement === undefined) {
      if (!Number.isInteger(n) || n < 1 || n > MAX_ROWS_PER_INSERT)
        throw new RangeError(`An insert takes 1 to ${MAX_ROWS_PER_INSERT} rows, not ${n}.`);
      statement = db.prepare<P[]>(`${head} ${Array<string>(n).fill(row).join(', ')}`);
      prepared.set(n, statement);
    }
    return statement;
  };
  return Object.assign(insert, { columns });
}

/**
 * Collects rows and inserts them through `insert`, {@link MAX_ROWS_PER_INSERT} at a time: `add`
 * one row's parameters (exactly `insert.columns` of them), `flush` what waits (before anything
 * reads the table, and at the end). A class, not closures: one is made per append.
 */
export class RowBuffer<P> {
  private readonly params: P[] = [];

  constructor(private readonly insert: MultiRowInsert<P>) {}

  add(...row: P[]): void {
    const { columns } = this.insert;
    if (row.length !== columns)
      throw new RangeError(`A row of this insert has ${columns} parameters, not ${row.length}.`);
    this.params.push(...row);
    if (this.params.length === MAX_ROWS_PER_INSERT * columns) this.flush();
  }

  flush(): void {
    const { params } = this;
    if (params.length === 0) return;
    this.insert(params.length / this.insert.columns).run(...params);
    params.length = 0;
  }
}
