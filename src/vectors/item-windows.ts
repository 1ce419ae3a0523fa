/**
 * What the vector index reads from the item index (`rm_items`, `rm_memories`, written by the
 * read models in the same file): which items are content, when each was written, deleted and
 * erased, and how far the read models stand. The only place the vectors know those tables.
 * Their names are the serving read-model layout's, asked at each use: after a layout built
 * beside takes over, the statements are prepared again on its tables.
 */
import type Database from 'better-sqlite3';

/** An item's window as the item index has it now. */
export interface ItemWindow {
  readonly seq: number;
  readonly deletedSeq: number | null;
  readonly erased: boolean;
}

/** A visible item: its seq, id and kind. */
export interface VisibleItem {
  readonly seq: number;
  readonly id: string;
  readonly kind: 'message' | 'document';
}

/** Queries over the item index of one read-model file. */
export interface ItemWindows {
  /** The read models' keys of every memory they hold. */
  memoryKeys(): number[];
  /** The read models' key of a memory id (undefined: they hold nothing of it). */
  memOf(memoryId: string): number | undefined;
  /** The memory id of the read models' key `mem` (undefined: unknown key). */
  memoryIdOf(mem: number): string | undefined;
  /** The read models' checkpoint of a memory (-1: none) and the id of the event there. */
  checkpoint(mem: number): { readonly seq: number; readonly id: string | null };
  /** The id of the event at `seq` (undefined: the item index holds no such seq). */
  idAt(mem: number, seq: number): string | undefined;
  /** Seqs of content not erased after `after`, at most `limit`, in order. */
  contentAfter(mem: number, after: number, limit: number): number[];
  /** The current windows of the items at `seqs` (absent seqs are left out). */
  windowsOf(mem: number, seqs: readonly number[]): Map<number, ItemWindow>;
  /** Items (with their deletion) deleted by a Deletion after `after` up to `upTo`. */
  deletedBetween(mem: number, after: number, upTo: number): { seq: number; deletedSeq: number }[];
  /** Seqs of items erased by an Erasure after `after` up to `upTo`. */
  erasedBetween(mem: number, after: number, upTo: number): number[];
  /** The seq of the first Deletion or Erasure after `after` that removed an item (undefined: none). */
  firstChangeAfter(mem: number, after: number): number | undefined;
  /** Content items not erased written after `after` up to `upTo`: how far vectors lag. */
  contentBetween(mem: number, after: number, upTo: number): number;
  /** The items of `seqs` visible right after `asOf` (written by then, not deleted by then, not erased). */
  visibleAt(mem: number, seqs: readonly number[], asOf: number): Map<number, VisibleItem>;
}

/** The item index's tables in the serving read-model layout. */
export interface ItemTables {
  readonly rm_items: string;
  readonly rm_memories: string;
}

/** The tables' own names (a file whose read models were never upgraded beside). */
const ITEM_TABLES: ItemTables = { rm_items: 'rm_items', rm_memories: 'rm_memories' };

/**
 * The queries on `db` over the tables `tables()` names now (they must exist), prepared again
 * whenever those names change.
 */
export function prepareItemWindows(
  db: Database.Database,
  tables: () => ItemTables = () => ITEM_TABLES,
): ItemWindows {
  let prepared: { readonly tables: ItemTables; readonly sql: ItemStatements } | undefined;
  const statements = (): ItemStatements => {
    const now = tables();
    if (
      prepared?.tables.rm_items !== now.rm_items ||
      prepared.tables.rm_memories !== now.rm_memories
    )
      prepared = { tables: now, sql: itemStatements(db, now) };
    return prepared.sql;
  };
  return itemWindows(statements);
}

type ItemStatements = ReturnType<typeof itemStatements>;

/** The statements over one layout's `rm_items` and `rm_memories`. */
function itemStatements(db: Database.Database, tables: ItemTables) {
  const { rm_items, rm_memories } = tables;
  return {
    memoryKeys: db.prepare<[], number>(`SELECT mem FROM ${rm_memories} ORDER BY mem`).pluck(),
    memoryId: db
      .prepare<[number], string>(`SELECT memory_id FROM ${rm_memories} WHERE mem = ?`)
      .pluck(),
    mem: db.prepare<[string], number>(`SELECT mem FROM ${rm_memories} WHERE memory_id = ?`).pluck(),
    checkpoint: db.prepare<[number], { seq: number; id: string }>(
      `SELECT seq, id FROM ${rm_items} WHERE mem = ? ORDER BY seq DESC LIMIT 1`,
    ),
    idAt: db
      .prepare<[number, number], string>(`SELECT id FROM ${rm_items} WHERE mem = ? AND seq = ?`)
      .pluck(),
    contentAfter: db
      .prepare<[number, number, number], number>(
        `SELECT seq FROM ${rm_items} WHERE mem = ? AND kind < 2 AND seq > ? AND erased_seq IS NULL
          ORDER BY seq LIMIT ?`,
      )
      .pluck(),
    windows: db.prepare<
      [number, string],
      { seq: number; deleted_seq: number | null; erased_seq: number | null }
    >(
      `SELECT seq, deleted_seq, erased_seq FROM ${rm_items}
        WHERE mem = ? AND seq IN (SELECT value FROM json_each(?))`,
    ),
    deleted: db.prepare<[number, number, number], { seq: number; deletedSeq: number }>(
      `SELECT seq, deleted_seq AS deletedSeq FROM ${rm_items}
        WHERE mem = ? AND deleted_seq > ? AND deleted_seq <= ?`,
    ),
    erased: db
      .prepare<[number, number, number], number>(
        `SELECT seq FROM ${rm_items} WHERE mem = ? AND erased_seq > ? AND erased_seq <= ?`,
      )
      .pluck(),
    firstChange: db
      .prepare<[number, number, number, number], number | null>(
        // An aggregate over both: the two-argument min() is NULL when either side is.
        `SELECT min(seq) FROM (
           SELECT min(deleted_seq) AS seq FROM ${rm_items} WHERE mem = ? AND deleted_seq > ?
           UNION ALL SELECT min(erased_seq) FROM ${rm_items} WHERE mem = ? AND erased_seq > ?)`,
      )
      .pluck(),
    contentBetween: db
      .prepare<[number, number, number], number>(
        `SELECT count(*) FROM ${rm_items} WHERE mem = ? AND kind < 2 AND seq > ? AND seq <= ?
            AND erased_seq IS NULL`,
      )
      .pluck(),
    visible: db.prepare<
      [string, number, number, number, number],
      { seq: number; id: string; kind: number }
    >(
      // CROSS JOIN keeps the list outside: each seq is one key lookup, where `seq IN (...)`
      // beside `seq <= ?` was planned as a range scan of everything written up to `asOf`.
      `SELECT i.seq, i.id, i.kind FROM json_each(?) AS j CROSS JOIN ${rm_items} AS i
        WHERE i.mem = ? AND i.seq = j.value AND i.kind < 2 AND i.seq <= ?
          AND (i.deleted_seq IS NULL OR i.deleted_seq > ?) AND i.erased_seq IS NULL AND ? >= 0`,
    ),
  };
}

/** The queries, each on the statements of the serving layout at its call. */
function itemWindows(statements: () => ItemStatements): ItemWindows {
  return {
    memoryKeys: () => statements().memoryKeys.all(),
    memOf: (memoryId) => statements().mem.get(memoryId),
    memoryIdOf: (mem) => statements().memoryId.get(mem),
    checkpoint(mem) {
      const row = statements().checkpoint.get(mem);
      return { seq: row?.seq ?? -1, id: row?.id ?? null };
    },
    idAt: (mem, seq) => statements().idAt.get(mem, seq),
    contentAfter: (mem, after, limit) => statements().contentAfter.all(mem, after, limit),
    windowsOf(mem, seqs) {
      const out = new Map<number, ItemWindow>();
      if (seqs.length === 0) return out;
      for (const row of statements().windows.all(mem, JSON.stringify(seqs)))
        out.set(row.seq, {
          seq: row.seq,
          deletedSeq: row.deleted_seq,
          erased: row.erased_seq !== null,
        });
      return out;
    },
    deletedBetween: (mem, after, upTo) => statements().deleted.all(mem, after, upTo),
    erasedBetween: (mem, after, upTo) => statements().erased.all(mem, after, upTo),
    firstChangeAfter: (mem, after) =>
      statements().firstChange.get(mem, after, mem, after) ?? undefined,
    contentBetween: (mem, after, upTo) =>
      upTo <= after ? 0 : (statements().contentBetween.get(mem, after, upTo) ?? 0),
    visibleAt(mem, seqs, asOf) {
      const out = new Map<number, VisibleItem>();
      if (seqs.length === 0) return out;
      for (const row of statements().visible.all(JSON.stringify(seqs), mem, asOf, asOf, asOf))
        out.set(row.seq, {
          seq: row.seq,
          id: row.id,
          kind: row.kind === 0 ? 'message' : 'document',
        });
      return out;
    },
  };
}
