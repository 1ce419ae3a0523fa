/**
 * One layout of the read models and search in their file: every statement of the writer, the
 * queries and search prepared once on that layout's table names (read-model.names.ts). The
 * serving layout answers queries; a layout built beside it (docs/layout-upgrades.md) is written
 * by the runtime's build and answers once it switched.
 *
 * A memory's integer key is the same in every layout: a layout that is not serving takes each
 * memory's key from the serving one, so a key a caller holds stays right across a switch.
 */
import type Database from 'better-sqlite3';
import { AssignedKeys } from '../db/transactions.js';
import type { SeqsOf } from './item-seqs.js';
import type { ReadModelNames } from './read-model.names.js';
import { prepareQueries, type LoadEvents, type ReadModelQueries } from './read-model.queries.js';
import { ensureReadModelSchema } from './read-model.schema.js';
import { prepareWholeState, type WholeState } from './read-model.whole-state.js';
import { prepareWriter, type ApplyEvents } from './read-model.writer.js';
import { prepareSearchReadModel, type SearchReadModel } from './search.read-model.js';

/** The key of a memory the read models hold nothing of: no row has it (keys start at 1). */
export const NO_ROWS = 0;

/** Where a layout's events come from and how it finds items by id (the file decides). */
export interface LayoutAccess {
  readonly load: LoadEvents;
  readonly seqsOf: SeqsOf;
}

/** What a layout needs of its file. */
export interface LayoutFile {
  readonly db: Database.Database;
  /** Whether this file keeps the events itself (no log in it). */
  readonly withPayloads: boolean;
  /** Event loading and item lookup on a layout's tables; `memoryIdOf` maps keys back. */
  access(names: ReadModelNames, memoryIdOf: (mem: number) => string): LayoutAccess;
  /** The serving layout, when it is another than `layout` (whose keys `layout` then takes). */
  servingOtherThan(layout: ReadModelLayout): ReadModelLayout | undefined;
}

/** The read models and search in one layout's tables. */
export interface ReadModelLayout {
  readonly names: ReadModelNames;
  readonly queries: ReadModelQueries;
  readonly wholeState: WholeState;
  readonly search: SearchReadModel;
  /** A memory's key, or {@link NO_ROWS} while this layout holds nothing of it (writes nothing). */
  keyOf(memoryId: string): number;
  /** A memory's key, created if needed (inside the caller's transaction). */
  createKey(memoryId: string): number;
  /** The last applied seq of a memory (-1: none) and the id of the event there. */
  checkpoint(mem: number): { readonly seq: number; readonly id: string | null };
  /**
   * Applies the next events of a memory inside the caller's transaction (earlier ones are
   * skipped, a gap is refused or left, read-model.writer.ts); returns those it applied.
   */
  write: ApplyEvents;
  /** Drops every row of one memory inside the caller's transaction (a rebuild follows). */
  reset(mem: number): void;
  /** Creates again those of its tables the runtime dropped since it opened (none: a read). */
  ensure(): void;
}

/** Creates the layout's tables where missing and prepares its statements. */
export function openReadModelLayout(file: LayoutFile, names: ReadModelNames): ReadModelLayout {
  const { db, withPayloads } = file;
  ensureReadModelSchema(db, withPayloads, names);
  const { rm_memories: memories, rm_items: items, rm_recall_uses: uses, rm_payloads } = names;
  const keys = new AssignedKeys<string, number>(db);
  const ids = new Map<number, string>();
  const { load, seqsOf } = file.access(names, (mem) => ids.get(mem)!);
  const search = prepareSearchReadModel(db, names);
  const sql = {
    insertMemory: db.prepare<[string]>(`INSERT OR IGNORE INTO ${memories} (memory_id) VALUES (?)`),
    insertMemoryAs: db.prepare<[number, string]>(
      `INSERT INTO ${memories} (mem, memory_id) VALUES (?, ?)`,
    ),
    keyOf: db.prepare<[string], number>(`SELECT mem FROM ${memories} WHERE memory_id = ?`).pluck(),
    // The checkpoint is the memory's last items row (read-model.schema.ts).
    checkpoint: db.prepare<[number], { seq: number; id: string }>(
      `SELECT seq, id FROM ${items} WHERE mem = ? ORDER BY seq DESC LIMIT 1`,
    ),
    resetSearchCheckpoint: db.prepare<[number]>(
      `UPDATE ${memories} SET search_checkpoint = -1 WHERE mem = ?`,
    ),
  };
  const deletes = [items, uses, ...(withPayloads ? [rm_payloads] : [])].map((table) =>
    db.prepare<[number]>(`DELETE FROM ${table} WHERE mem = ?`),
  );
  const layout: ReadModelLayout = {
    names,
    queries: prepareQueries(db, load, seqsOf, names),
    wholeState: prepareWholeState(db, load, names),
    search,
    keyOf(memoryId) {
      const mem = keys.of(memoryId, () => {
        const found = sql.keyOf.get(memoryId);
        if (found !== undefined) ids.set(found, memoryId);
        return found;
      });
      return mem ?? NO_ROWS;
    },
    createKey(memoryId) {
      const mem = layout.keyOf(memoryId);
      if (mem !== NO_ROWS) return mem;
      const serving = file.servingOtherThan(layout);
      if (serving) sql.insertMemoryAs.run(serving.createKey(memoryId), memoryId);
      else sql.insertMemory.run(memoryId);
      return layout.keyOf(memoryId);
    },
    checkpoint(mem) {
      const row = sql.checkpoint.get(mem);
      return { seq: row?.seq ?? -1, id: row?.id ?? null };
    },
    write: prepareWriter(db, search, withPayloads, seqsOf, names),
    reset(mem) {
      for (const statement of deletes) statement.run(mem);
      search.clear(mem);
      sql.resetSearchCheckpoint.run(mem);
    },
    ensure: () => ensureReadModelSchema(db, withPayloads, names),
  };
  return layout;
}
