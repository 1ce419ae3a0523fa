/**
 * The read models of every memory of one store, in one SQLite database: the store's own file
 * (SQLite store: written inside each append's transaction, read back with the log's events) or
 * a local file of their own (any other store: fed by catch-up from the log, events copied into
 * `rm_payloads`). Process memory holds no per-event structure; only small per-memory keys.
 */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../core/index.js';
import { openSqliteFile } from '../db/sqlite-file.js';
import { decodeTrustedJson } from '../store/codec.js';
import type { EmbeddedDatabase } from '../store/event-log.port.js';
import type { WalScrubber } from '../db/wal-scrub.js';
import { seqsOnLog, seqsOnReadModels, type SeqsOf } from './item-seqs.js';
import { prepareQueries, type LoadEvents, type ReadModelQueries } from './read-model.queries.js';
import { ensureReadModelSchema } from './read-model.schema.js';
import { prepareWholeState, type WholeState } from './read-model.whole-state.js';
import { prepareWriter } from './read-model.writer.js';
import { prepareSearchReadModel, type SearchReadModel } from './search.read-model.js';

/** The key of a memory the read models hold nothing of: no row has it (keys start at 1). */
export const NO_ROWS = 0;

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
  readonly queries: ReadModelQueries;
  readonly wholeState: WholeState;
  readonly search: SearchReadModel;
  /**
   * The integer key of a memory in every read-model row, or {@link NO_ROWS} while the read
   * models hold nothing of it (a read creates nothing, so a look at an empty memory writes
   * nothing to disk).
   */
  keyOf(memoryId: string): number;
  /** The key of a memory, created if needed (before its first events are applied). */
  createKey(memoryId: string): number;
  /** The last applied seq of a memory (-1: none) and the id of the event there. */
  checkpoint(mem: number): { readonly seq: number; readonly id: string | null };
  /**
   * Applies the next events of a memory inside the caller's transaction (earlier ones are
   * skipped, a gap is refused); returns those it applied. The read-models projection's `apply`.
   */
  write(mem: number, events: readonly Sequenced[]): Sequenced[];
  /** Drops every row of one memory inside the caller's transaction (a rebuild follows). */
  reset(mem: number): void;
  /** Runs `work` in one read transaction, so every query in it sees the same snapshot. */
  read<T>(work: () => T): T;
  /** Closes the database when the read models own it. */
  close(): void;
}

/** Read models inside the store's own database (the SQLite store). */
export function openEmbeddedReadModels(embedded: EmbeddedDatabase): ReadModelDb {
  const db = embedded.database;
  ensureReadModelSchema(db, false);
  const models = readModelsOn(db, 'the store file', false, (memoryIdOf) => ({
    load: (mem, seqs) => embedded.eventsAt(memoryIdOf(mem), seqs),
    seqsOf: seqsOnLog(embedded, memoryIdOf),
  }));
  return {
    ...models,
    embedded: true,
    database: db,
    path: embedded.path,
    wal: embedded.wal,
    close: () => undefined,
  };
}

/** Read models in a file of their own (`:memory:` for a private in-memory database). */
export function openReadModelFile(path: string): ReadModelDb {
  // Derived data: a lost last commit is re-applied from the log by the next catch-up. A crash
  // between an applied Erasure and its scrub is scrubbed on open (src/db/sqlite-file.ts).
  const file = openSqliteFile({ path, role: 'read-model file', synchronous: 'NORMAL' });
  const { db, wal } = file;
  try {
    file.run('open', () => ensureReadModelSchema(db, true));
  } catch (error) {
    file.close();
    throw error;
  }
  const payloads = db.prepare<[number, string], { seq: number; type: string; payload: string }>(
    `SELECT seq, type, payload FROM rm_payloads
      WHERE mem = ? AND seq IN (SELECT value FROM json_each(?))`,
  );
  // The copies were written from validated events: one indexed read per page, no second parse.
  const load: LoadEvents = (mem, seqs) => {
    const out = new Map<number, Sequenced>();
    if (seqs.length === 0) return out;
    for (const row of payloads.all(mem, JSON.stringify(seqs)))
      out.set(row.seq, decodeTrustedJson(row.type, row.payload, row.seq, `read models ${path}`));
    return out;
  };
  const models = readModelsOn(db, path, true, () => ({
    load,
    seqsOf: seqsOnReadModels(db),
  }));
  return { ...models, embedded: false, path, database: db, wal, close: () => file.close() };
}

function readModelsOn(
  db: Database.Database,
  location: string,
  withPayloads: boolean,
  /** How events are loaded by seq and items found by id, where the events live. */
  access: (memoryIdOf: (mem: number) => string) => { load: LoadEvents; seqsOf: SeqsOf },
): Omit<ReadModelDb, 'close' | 'embedded' | 'path' | 'wal' | 'database'> {
  const keys = new Map<string, number>();
  const ids = new Map<number, string>();
  const memoryIdOf = (mem: number) => ids.get(mem)!;
  const { load, seqsOf } = access(memoryIdOf);
  const search = prepareSearchReadModel(db);
  const write = prepareWriter(db, search, withPayloads, seqsOf);
  const sql = {
    insertMemory: db.prepare<[string]>('INSERT OR IGNORE INTO rm_memories (memory_id) VALUES (?)'),
    keyOf: db.prepare<[string], number>('SELECT mem FROM rm_memories WHERE memory_id = ?').pluck(),
    // The checkpoint is the memory's last rm_items row (read-model.schema.ts).
    checkpoint: db.prepare<[number], { seq: number; id: string }>(
      'SELECT seq, id FROM rm_items WHERE mem = ? ORDER BY seq DESC LIMIT 1',
    ),
    resetSearchCheckpoint: db.prepare<[number]>(
      'UPDATE rm_memories SET search_checkpoint = -1 WHERE mem = ?',
    ),
  };
  const queries = prepareQueries(db, load, seqsOf);
  const wholeState = prepareWholeState(db, load);
  const perMemoryTables = ['rm_items', 'rm_recall_uses'].concat(
    withPayloads ? ['rm_payloads'] : [],
  );
  const deletes = perMemoryTables.map((table) =>
    db.prepare<[number]>(`DELETE FROM ${table} WHERE mem = ?`),
  );
  const reset = (mem: number) => {
    for (const statement of deletes) statement.run(mem);
    search.clear(mem);
    sql.resetSearchCheckpoint.run(mem);
  };

  return {
    location,
    queries,
    wholeState,
    search,
    keyOf(memoryId) {
      let mem = keys.get(memoryId);
      if (mem === undefined) {
        mem = sql.keyOf.get(memoryId);
        if (mem === undefined) return NO_ROWS;
        keys.set(memoryId, mem);
        ids.set(mem, memoryId);
      }
      return mem;
    },
    createKey(memoryId) {
      const mem = this.keyOf(memoryId);
      if (mem !== NO_ROWS) return mem;
      sql.insertMemory.run(memoryId);
      return this.keyOf(memoryId);
    },
    checkpoint(mem) {
      const row = sql.checkpoint.get(mem);
      return { seq: row?.seq ?? -1, id: row?.id ?? null };
    },
    write,
    reset,
    read(work) {
      return db.inTransaction ? work() : db.transaction(work).deferred();
    },
  };
}
