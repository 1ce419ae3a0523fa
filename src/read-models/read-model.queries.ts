/**
 * Queries of the read models, each answered by index lookups ("as of seq n" included), never
 * by folding the log. Events themselves are loaded by seq from where they live (the log's own
 * table, or `rm_payloads`), only for what a page returns.
 */
import type Database from 'better-sqlite3';
import {
  EVENT_KINDS,
  MemoryError,
  type Deletion,
  type Erasure,
  type Recall,
  type StoredDocument,
  type StoredMessage,
  type RecallStat,
  type Sequenced,
} from '../core/index.js';
import type { SeqsOf } from './item-seqs.js';
import { KIND_CODES } from '../db/encodings.js';
import { readModelNames, type ReadModelNames } from './read-model.names.js';
import {
  fillStatePage,
  MAX_PAGE,
  STATE_PAGE_BYTES,
  totalsOf,
  type ItemEntry,
  type PageOptions,
  type RecallUse,
  type ResolvedPage,
  type StatePage,
} from './read-model.types.js';

/** Loads events of one memory by seq; a seq the log does not hold is left out. */
export type LoadEvents = (mem: number, seqs: readonly number[]) => Map<number, Sequenced>;

interface TotalsRow {
  readonly messages: number;
  readonly documents: number;
  readonly deleted_messages: number;
  readonly deleted_documents: number;
}

/** A deleted item: its id, the seq of its Deletion, and of its Erasure if any. */
type DeletedRow = [id: string, deletedSeq: number, erasedSeq: number | null, seq: number];

/** An item's recall statistics: its seq, the count, the last recall's seq and time. */
type StatRow = [itemSeq: number, count: number, lastSeq: number, lastTs: string];

interface ItemRow {
  readonly kind: number;
  readonly deleted_seq: number | null;
  readonly erased_seq: number | null;
}

/** Checks a page request. */
export function resolvePage(options: PageOptions): ResolvedPage {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 100;
  const byteBudget = options.byteBudget ?? STATE_PAGE_BYTES;
  if (
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > MAX_PAGE ||
    !(byteBudget > 0)
  ) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Invalid page: offset must be 0 or more and limit 1 to ${MAX_PAGE}.`,
      { issues: [{ path: 'offset/limit', message: `offset >= 0, 1 <= limit <= ${MAX_PAGE}` }] },
    );
  }
  return { offset, limit, byteBudget };
}

/** The read-model queries over one connection. */
export type ReadModelQueries = ReturnType<typeof prepareQueries>;

/**
 * Prepares every query once per connection and layout (`names`); `seqsOf` finds items by id.
 */
export function prepareQueries(
  db: Database.Database,
  load: LoadEvents,
  seqsOf: SeqsOf,
  names: ReadModelNames = readModelNames(),
) {
  const { rm_items: items, rm_recall_uses: uses, rm_item_totals: totals } = names;
  // `LIMIT ? + 0`, never a bare `LIMIT ?`: SQLite (3.53) reads a bare one's bound value while
  // planning and then expires the statement whenever that parameter is bound again, which
  // better-sqlite3 does on every call, so each call prepared the statement anew (~6 µs).
  const sql = {
    visible: db
      .prepare<[number, number, number, number, number, number], number>(
        // `kind < 2` lets SQLite use the partial index rm_items_content (a bound `kind = ?`
        // alone does not prove it), which covers the query: without it, the primary key is
        // walked from the first seq, every kind read and skipped.
        `SELECT seq FROM ${items}
          WHERE mem = ? AND kind < 2 AND kind = ? AND seq <= ?
            AND (deleted_seq IS NULL OR deleted_seq > ?)
          ORDER BY seq LIMIT ? + 0 OFFSET ?`,
      )
      .pluck(),
    // Rows as arrays (`raw`): better-sqlite3 builds an object per row by setting each column
    // by name, which showed in the page's profile.
    deleted: db
      .prepare<[number, number, number, number], DeletedRow>(
        `SELECT id, deleted_seq, erased_seq, seq FROM ${items}
          WHERE mem = ? AND deleted_seq IS NOT NULL AND deleted_seq <= ?
          ORDER BY deleted_seq, seq LIMIT ? + 0 OFFSET ?`,
      )
      .raw(),
    totals: db.prepare<[number, number], TotalsRow>(
      `SELECT messages, documents, deleted_messages, deleted_documents FROM ${totals}
        WHERE mem = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`,
    ),
    // With one max() aggregate, SQLite takes the bare column (the time) from the row of the max.
    recallStats: db
      .prepare<[number, string, number], StatRow>(
        `SELECT item_seq, COUNT(*), MAX(recall_seq), recall_ts FROM ${uses}
          WHERE mem = ? AND item_seq IN (SELECT value FROM json_each(?)) AND recall_seq <= ?
          GROUP BY item_seq`,
      )
      .raw(),
    recallUses: db
      .prepare<[number, number, number], number>(
        `SELECT recall_seq FROM ${uses} WHERE mem = ? AND item_seq = ?
          ORDER BY recall_seq LIMIT ? + 0`,
      )
      .pluck(),
    itemAt: db.prepare<[number, number], ItemRow>(
      `SELECT kind, deleted_seq, erased_seq FROM ${items} WHERE mem = ? AND seq = ?`,
    ),
  };
  const loadInOrder = <T extends Sequenced>(mem: number, seqs: readonly number[]): T[] => {
    const events = load(mem, seqs);
    return seqs.map((seq) => events.get(seq)).filter((e): e is T => e !== undefined);
  };
  /** The recall stats as of `n` of the items `idOf` names by seq, in one grouped read. */
  const statsOf = (mem: number, idOf: ReadonlyMap<number, string>, n: number) => {
    const stats: Record<string, RecallStat> = {};
    if (idOf.size === 0) return stats;
    for (const [seq, count, last, ts] of sql.recallStats.all(
      mem,
      JSON.stringify([...idOf.keys()]),
      n,
    ))
      stats[idOf.get(seq)!] = { count, lastRecalledAt: ts, lastRecalledSeq: last };
    return stats;
  };

  return {
    /** A page of the state as it stood right after seq `n` (`-1`: before the first event). */
    statePage(mem: number, n: number, page: ResolvedPage): StatePage {
      const visible = (kind: number) =>
        sql.visible.all(mem, kind, n, n, page.limit + 1, page.offset);
      const messageSeqs = visible(KIND_CODES.message);
      const documentSeqs = visible(KIND_CODES.document);
      const deletedRows = sql.deleted.all(mem, n, page.limit + 1, page.offset);
      const erasureSeq = new Map<string, number>();
      for (const [id, , erased] of deletedRows)
        if (erased !== null && erased <= n) erasureSeq.set(id, erased);
      // Every event of the page in one read: content, Deletions, Erasures.
      const events = load(mem, [
        ...messageSeqs,
        ...documentSeqs,
        ...deletedRows.map(([, deletedSeq]) => deletedSeq),
        ...erasureSeq.values(),
      ]);
      const inOrder = <T extends Sequenced>(seqs: readonly number[]): T[] => {
        const out: T[] = [];
        for (const seq of seqs) {
          const event = events.get(seq);
          if (event !== undefined) out.push(event as T);
        }
        return out;
      };
      return fillStatePage(page, {
        lastSeq: n < 0 ? null : n,
        totals: totalsOf(sql.totals.get(mem, n)),
        visibleMessages: inOrder<Sequenced<StoredMessage>>(messageSeqs),
        visibleDocuments: inOrder<Sequenced<StoredDocument>>(documentSeqs),
        deleted: deletedRows.map(
          ([id, deletedSeq, , seq]) =>
            [id, events.get(deletedSeq) as Sequenced<Deletion>, seq] as const,
        ),
        erasureOf: (id) => {
          const seq = erasureSeq.get(id);
          return seq === undefined ? undefined : (events.get(seq) as Sequenced<Erasure>);
        },
        recallStats: (onPage) => statsOf(mem, onPage, n),
      });
    },

    /** What the read models know of `id`, or `undefined` when it is not in this memory. */
    item(mem: number, id: string): ItemEntry | undefined {
      const key = id.toLowerCase();
      const seq = seqsOf(mem, [key]).get(key);
      const row = seq === undefined ? undefined : sql.itemAt.get(mem, seq);
      return (
        row && {
          kind: EVENT_KINDS[row.kind]!,
          seq: seq!,
          deletedSeq: row.deleted_seq,
          erasedSeq: row.erased_seq,
        }
      );
    },

    /** The recalls that used the item at `itemSeq`, in log order (at most `limit`). */
    recallUses(mem: number, itemSeq: number, limit: number): RecallUse[] {
      return loadInOrder<Sequenced<Recall>>(mem, sql.recallUses.all(mem, itemSeq, limit)).map(
        (recall) => ({
          recallId: recall.id,
          query: recall.query,
          seq: recall.seq,
          timestamp: recall.timestamp,
          actor: recall.actor,
          sessionId: recall.sessionId,
          retrieval: recall.retrieval,
        }),
      );
    },

    /** Events by seq, in the order asked. */
    events<T extends Sequenced>(mem: number, seqs: readonly number[]): T[] {
      return loadInOrder<T>(mem, seqs);
    },
  };
}
