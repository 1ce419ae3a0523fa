/**
 * The whole state as of a seq, from the read models, in chunks: a head with the totals, then
 * every piece of content written by then (seq order), the deletions (deletion order), the
 * erasures (erasure order) and the recall statistics, each read by key ranges of {@link CHUNK_ITEMS}. A caller can stream a
 * memory of millions of events without holding it; `collectState` builds a `MemoryState`.
 */
import type Database from 'better-sqlite3';
import {
  deepFreeze,
  type ContentEvent,
  type Deletion,
  type Erasure,
  type MemoryState,
  type RecallStat,
  type StoredDocument,
  type StoredMessage,
  type Sequenced,
} from '../core/index.js';
import type { LoadEvents } from './read-model.queries.js';
import { totalsOf, type StatePage } from './read-model.types.js';
import { readModelNames, type ReadModelNames } from './read-model.names.js';

/** Items per chunk of a streamed state. */
export const CHUNK_ITEMS = 500;

/** One chunk of a streamed state. */
export type StateChunk =
  | {
      readonly part: 'head';
      readonly lastSeq: number | null;
      readonly totals: StatePage['totals'];
    }
  | { readonly part: 'content'; readonly items: readonly Sequenced<ContentEvent>[] }
  | {
      readonly part: 'deleted';
      readonly entries: readonly (readonly [string, Sequenced<Deletion>])[];
    }
  | {
      readonly part: 'erased';
      readonly entries: readonly (readonly [string, Sequenced<Erasure>])[];
    }
  | { readonly part: 'recallStats'; readonly entries: readonly (readonly [string, RecallStat])[] };

interface TotalsRow {
  readonly messages: number;
  readonly documents: number;
  readonly deleted_messages: number;
  readonly deleted_documents: number;
}

/** Prepares the whole-state reads over one connection and layout (`names`). */
export function prepareWholeState(
  db: Database.Database,
  load: LoadEvents,
  names: ReadModelNames = readModelNames(),
) {
  const { rm_items: items, rm_recall_uses: uses, rm_item_totals: totals } = names;
  // `LIMIT ? + 0`: a bare `LIMIT ?` re-prepares the statement on every call (see
  // read-model.queries.ts).
  const sql = {
    totals: db.prepare<[number, number], TotalsRow>(
      `SELECT messages, documents, deleted_messages, deleted_documents FROM ${totals}
        WHERE mem = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`,
    ),
    content: db
      .prepare<[number, number, number, number], number>(
        `SELECT seq FROM ${items} WHERE mem = ? AND kind < 2 AND seq > ? AND seq <= ?
          ORDER BY seq LIMIT ? + 0`,
      )
      .pluck(),
    deleted: db.prepare<
      [number, number, number, number, number],
      { seq: number; id: string; deleted_seq: number }
    >(
      `SELECT seq, id, deleted_seq FROM ${items}
        WHERE mem = ? AND deleted_seq IS NOT NULL AND deleted_seq <= ? AND (deleted_seq, seq) > (?, ?)
        ORDER BY deleted_seq, seq LIMIT ? + 0`,
    ),
    erased: db.prepare<
      [number, number, number, number, number],
      { seq: number; id: string; erased_seq: number }
    >(
      `SELECT seq, id, erased_seq FROM ${items}
        WHERE mem = ? AND erased_seq IS NOT NULL AND erased_seq <= ? AND (erased_seq, seq) > (?, ?)
        ORDER BY erased_seq, seq LIMIT ? + 0`,
    ),
    recallStats: db.prepare<
      [number, number, number, number],
      { seq: number; id: string; count: number; last: number; ts: string }
    >(
      `SELECT u.item_seq AS seq, i.id AS id, COUNT(*) AS count, MAX(u.recall_seq) AS last,
              u.recall_ts AS ts
         FROM ${uses} u JOIN ${items} i ON i.mem = u.mem AND i.seq = u.item_seq
        WHERE u.mem = ? AND u.recall_seq <= ? AND u.item_seq > ?
        GROUP BY u.item_seq ORDER BY u.item_seq LIMIT ? + 0`,
    ),
  };

  return {
    /** The head chunk: totals as of `n`. */
    head(mem: number, n: number): StateChunk {
      return { part: 'head', lastSeq: n < 0 ? null : n, totals: totalsOf(sql.totals.get(mem, n)) };
    },

    /** Content written by `n` with seq > `after` (one chunk; empty at the end). */
    content(mem: number, n: number, after: number): Sequenced<ContentEvent>[] {
      const seqs = sql.content.all(mem, after, n, CHUNK_ITEMS);
      const events = load(mem, seqs);
      return seqs.map((seq) => events.get(seq) as Sequenced<ContentEvent>);
    },

    /** Deletions by `n` after the (deletion seq, target seq) cursor. */
    deleted(mem: number, n: number, after: readonly [number, number]) {
      const rows = sql.deleted.all(mem, n, after[0], after[1], CHUNK_ITEMS);
      const deletions = load(mem, [...new Set(rows.map((r) => r.deleted_seq))]);
      const entries = rows.map(
        (r) => [r.id, deletions.get(r.deleted_seq) as Sequenced<Deletion>] as const,
      );
      const last = rows.at(-1);
      return { entries, next: last ? ([last.deleted_seq, last.seq] as const) : undefined };
    },

    /** Erasures by `n` after the (erasure seq, target seq) cursor. */
    erased(mem: number, n: number, after: readonly [number, number]) {
      const rows = sql.erased.all(mem, n, after[0], after[1], CHUNK_ITEMS);
      const erasures = load(mem, [...new Set(rows.map((r) => r.erased_seq))]);
      const entries = rows.map(
        (r) => [r.id, erasures.get(r.erased_seq) as Sequenced<Erasure>] as const,
      );
      const last = rows.at(-1);
      return { entries, next: last ? ([last.erased_seq, last.seq] as const) : undefined };
    },

    /** Recall statistics by `n` of items with seq > `after`. */
    recallStats(mem: number, n: number, after: number) {
      const rows = sql.recallStats.all(mem, n, after, CHUNK_ITEMS);
      const entries = rows.map(
        (r) => [r.id, { count: r.count, lastRecalledAt: r.ts, lastRecalledSeq: r.last }] as const,
      );
      return { entries, next: rows.at(-1)?.seq };
    },
  };
}

/** The whole-state reads of one connection. */
export type WholeState = ReturnType<typeof prepareWholeState>;

/**
 * Every chunk of the state as of `n`. `read` runs each chunk's reads in one read transaction;
 * answers as of a fixed `n` do not change while the log grows, so chunks need no common one.
 * `serving` gives the reads of the layout serving at each chunk: a layout that took over
 * between two chunks answers the same (it holds at least `n`, under the same memory keys).
 */
export async function* streamState(
  serving: () => WholeState,
  read: <T>(work: () => T) => T,
  mem: number,
  n: number,
): AsyncGenerator<StateChunk> {
  yield read(() => serving().head(mem, n));
  for (let after = -1; ;) {
    const items = read(() => serving().content(mem, n, after));
    if (items.length === 0) break;
    yield { part: 'content', items };
    after = items.at(-1)!.seq;
  }
  for (let after: readonly [number, number] | undefined = [-1, -1]; after;) {
    const chunk = read(() => serving().deleted(mem, n, after!));
    if (chunk.entries.length > 0) yield { part: 'deleted', entries: chunk.entries };
    after = chunk.next;
  }
  for (let after: readonly [number, number] | undefined = [-1, -1]; after;) {
    const chunk = read(() => serving().erased(mem, n, after!));
    if (chunk.entries.length > 0) yield { part: 'erased', entries: chunk.entries };
    after = chunk.next;
  }
  for (let after: number | undefined = -1; after !== undefined;) {
    const chunk = read(() => serving().recallStats(mem, n, after!));
    if (chunk.entries.length > 0) yield { part: 'recallStats', entries: chunk.entries };
    after = chunk.next;
  }
}

/** Builds a `MemoryState` from streamed chunks (as large as the memory). */
export async function collectState(chunks: AsyncIterable<StateChunk>): Promise<MemoryState> {
  let lastSeq: number | null = null;
  const messages: Sequenced<StoredMessage>[] = [];
  const documents: Sequenced<StoredDocument>[] = [];
  const deleted: Record<string, Sequenced<Deletion>> = {};
  const erased: Record<string, Sequenced<Erasure>> = {};
  const recallStats: Record<string, RecallStat> = {};
  for await (const chunk of chunks) {
    switch (chunk.part) {
      case 'head':
        lastSeq = chunk.lastSeq;
        break;
      case 'content':
        for (const item of chunk.items)
          (item.kind === 'message' ? messages : documents).push(item as never);
        break;
      case 'deleted':
        for (const [id, deletion] of chunk.entries) deleted[id] = deletion;
        break;
      case 'erased':
        for (const [id, erasure] of chunk.entries) erased[id] = erasure;
        break;
      case 'recallStats':
        for (const [id, stat] of chunk.entries) recallStats[id] = stat;
        break;
    }
  }
  const visible = (item: Sequenced) => !(item.id in deleted);
  return deepFreeze({
    messages,
    documents,
    visibleMessages: messages.filter(visible),
    visibleDocuments: documents.filter(visible),
    deleted,
    erased,
    recallStats,
    lastSeq,
  });
}
