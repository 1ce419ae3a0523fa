/**
 * The read models of every memory of one store, in one SQLite database: the store's own file
 * (SQLite store: written inside each append's transaction, read back with the log's events) or
 * a local file of their own (any other store: fed by catch-up from the log, events copied into
 * `rm_payloads`). Process memory holds no per-event structure; only small per-memory keys.
 * The file holds one layout of their tables, or two while a new one is built beside the serving
 * one (read-model-layout.ts); queries go to the layout serving when they are asked.
 */
import type Database from 'better-sqlite3';
import { MemoryError, type Sequenced } from '../core/index.js';
import { openSqliteFile } from '../db/sqlite-file.js';
import { reading } from '../db/transactions.js';
import { decodeTrustedJson } from '../store/codec.js';
import type { EmbeddedDatabase } from '../store/event-log.port.js';
import type { WalScrubber } from '../db/wal-scrub.js';
import { seqsOnLog, seqsOnReadModels } from './item-seqs.js';
import { type LayoutAccess, type LayoutFile, type ReadModelLayout } from './read-model-layout.js';
import type { ReadModelNames, TableNaming } from './read-model.names.js';
import type { ReadModelLayoutCode } from './read-model-layouts.js';
import type { LoadEvents, ReadModelQueries } from './read-model.queries.js';
import type { WholeState } from './read-model.whole-state.js';
import type { SearchReadModel } from './search.read-model.js';

export { NO_ROWS, type ReadModelLayout } from './read-model-layout.js';

/** The read models of one store. */
export interface ReadModelDb {
  /** Where they live, for messages. */
  readonly location: string;
  /** True when they live in the store's own database (so its write lock covers them too). */
  readonly embedded: boolean;
  /** Their file's path (the store's own, when embedded). */
  readonly path: string;
  /** Their file's connection (the store's own, when embedded; the vector index's tables live there). */
  readonly database: Database.Database;
  /**
   * Their file's write-ahead log scrubs: requested whenever an applied Erasure dropped words, so
   * no page image from before it outlives it (src/db/wal-scrub.ts).
   */
  readonly wal: WalScrubber;
  /** The serving layout's queries (resolved at each use: a layout built beside may take over). */
  readonly queries: ReadModelQueries;
  /** The serving layout's whole-state reads. */
  readonly wholeState: WholeState;
  /** The serving layout's table names (the vector index reads its item index by them). */
  readonly names: ReadModelNames;
  /** The serving layout's search. */
  readonly search: SearchReadModel;
  /**
   * The integer key of a memory in every read-model row, or {@link NO_ROWS} while the read
   * models hold nothing of it (a read creates nothing, so a look at an empty memory writes
   * nothing to disk). The same in every layout.
   */
  keyOf(memoryId: string): number;
  /** The key of a memory, created if needed (before its first events are applied). */
  createKey(memoryId: string): number;
  /** The serving layout's last applied seq of a memory (-1: none) and the id of the event there. */
  checkpoint(mem: number): { readonly seq: number; readonly id: string | null };
  /**
   * The layout `code` with its tables named by `naming` (their own names without it), opened on
   * first use (its tables created where missing): what the read-models and search projections
   * open for a runtime's context.
   */
  layout(code: ReadModelLayoutCode, naming?: TableNaming): ReadModelLayout;
  /** Where queries find the serving layout from now on (the runtime: registerReadModels). */
  serveFrom(serving: () => ReadModelLayout | undefined): void;
  /** Runs `work` in one read transaction, so every query in it sees the same snapshot. */
  read<T>(work: () => T): T;
  /** Closes the database when the read models own it. */
  close(): void;
}

/** Read models inside the store's own database (the SQLite store). */
export function openEmbeddedReadModels(embedded: EmbeddedDatabase): ReadModelDb {
  const db = embedded.database;
  return new ReadModelFile(db, {
    location: 'the store file',
    path: embedded.path,
    embedded: true,
    wal: embedded.wal,
    access: (_names, memoryIdOf) => ({
      load: (mem, seqs) => embedded.eventsAt(memoryIdOf(mem), seqs),
      seqsOf: seqsOnLog(embedded, memoryIdOf),
    }),
    close: () => undefined,
  });
}

/** Read models in a file of their own (`:memory:` for a private in-memory database). */
export function openReadModelFile(path: string): ReadModelDb {
  // Derived data: a lost last commit is re-applied from the log by the next catch-up. A crash
  // between an applied Erasure and its scrub is scrubbed on open (src/db/sqlite-file.ts).
  const file = openSqliteFile({ path, role: 'read-model file', synchronous: 'NORMAL' });
  const { db, wal } = file;
  return new ReadModelFile(db, {
    location: path,
    path,
    embedded: false,
    wal,
    access: (names) => ({
      load: payloadLoader(db, names, path),
      seqsOf: seqsOnReadModels(db, names),
    }),
    translate: (work) => file.run('open', work),
    close: () => file.close(),
  });
}

/** Loads events from a layout's copies of them (`rm_payloads`). */
function payloadLoader(db: Database.Database, names: ReadModelNames, path: string): LoadEvents {
  const payloads = db.prepare<[number, string], { seq: number; type: string; payload: string }>(
    `SELECT seq, type, payload FROM ${names.rm_payloads}
      WHERE mem = ? AND seq IN (SELECT value FROM json_each(?))`,
  );
  // The copies were written from validated events: one indexed read per page, no second parse.
  return (mem, seqs) => {
    const out = new Map<number, Sequenced>();
    if (seqs.length === 0) return out;
    for (const row of payloads.all(mem, JSON.stringify(seqs)))
      out.set(row.seq, decodeTrustedJson(row.type, row.payload, row.seq, `read models ${path}`));
    return out;
  };
}

interface FileOptions {
  readonly location: string;
  readonly path: string;
  readonly embedded: boolean;
  readonly wal: WalScrubber;
  readonly access: (names: ReadModelNames, memoryIdOf: (mem: number) => string) => LayoutAccess;
  /** Runs a layout's opening, translating the driver's errors (own file). */
  readonly translate?: <T>(work: () => T) => T;
  readonly close: () => void;
}

class ReadModelFile implements ReadModelDb, LayoutFile {
  readonly location: string;
  readonly path: string;
  readonly embedded: boolean;
  readonly wal: WalScrubber;
  readonly withPayloads: boolean;
  /** The layouts opened on this file, by version and table suffix. */
  private readonly layouts = new Map<string, ReadModelLayout>();
  private serving: (() => ReadModelLayout | undefined) | undefined;

  constructor(
    readonly db: Database.Database,
    private readonly options: FileOptions,
  ) {
    this.location = options.location;
    this.path = options.path;
    this.embedded = options.embedded;
    this.wal = options.wal;
    this.withPayloads = !options.embedded;
  }

  get database(): Database.Database {
    return this.db;
  }

  get queries(): ReadModelQueries {
    return this.current().queries;
  }

  get wholeState(): WholeState {
    return this.current().wholeState;
  }

  get names(): ReadModelNames {
    return this.current().names;
  }

  get search(): SearchReadModel {
    return this.current().search;
  }

  keyOf(memoryId: string): number {
    return this.current().keyOf(memoryId);
  }

  createKey(memoryId: string): number {
    return this.current().createKey(memoryId);
  }

  checkpoint(mem: number): { readonly seq: number; readonly id: string | null } {
    return this.current().checkpoint(mem);
  }

  layout(code: ReadModelLayoutCode, naming: TableNaming = (table) => table): ReadModelLayout {
    const key = `${code.version}${naming('')}`;
    let layout = this.layouts.get(key);
    // Tables the runtime dropped since (a rebuild of search, opened after the read models) are
    // created again; statements prepared on them are prepared again by SQLite.
    if (layout) this.run(() => layout!.ensure());
    else {
      layout = this.run(() => code.open(this, naming));
      this.layouts.set(key, layout);
    }
    return layout;
  }

  access(names: ReadModelNames, memoryIdOf: (mem: number) => string): LayoutAccess {
    return this.options.access(names, memoryIdOf);
  }

  servingOtherThan(layout: ReadModelLayout): ReadModelLayout | undefined {
    const serving = this.serving?.();
    return serving === layout ? undefined : serving;
  }

  serveFrom(serving: () => ReadModelLayout | undefined): void {
    this.serving = serving;
  }

  read<T>(work: () => T): T {
    return reading(this.db, work);
  }

  close(): void {
    this.options.close();
  }

  /** The serving layout: the runtime's, or before one serves, the only layout opened. */
  private current(): ReadModelLayout {
    const serving = this.serving?.();
    if (serving) return serving;
    if (this.layouts.size === 1) return this.layouts.values().next().value!;
    throw new MemoryError(
      'STORE_FAILED',
      `The read models in ${this.location} are not registered on a projection runtime, so no layout serves their queries.`,
      { details: { location: this.location } },
    );
  }

  /** Runs `work`; a failure closes a file the read models own. */
  private run<T>(work: () => T): T {
    try {
      return this.options.translate ? this.options.translate(work) : work();
    } catch (error) {
      if (!this.embedded) this.close();
      throw error;
    }
  }
}
