/**
 * The search read model on SQLite FTS5 (BM25), persistent and insert-only apart from erasure.
 *
 * Layout. `search_fts` holds the text of every piece of content ever written under the rowid
 * `mem * 2^40 + seq`, so one memory's rows are one rowid range (isolation and the memory filter
 * cost nothing: FTS5 seeks its doclists to the range), and "written at or before n" is the
 * upper end of that range. What a row is (id, kind) and "not deleted at or before n" come from
 * the item index `rm_items` at (mem, seq), written by the same projection, and are checked for
 * the few best candidates only, as FTS5 hands them over in rank order.
 *
 * Why FTS5 keeps its own copy of the text (not `contentless_delete=1`): `forget` must leave no
 * trace of a word. A contentless-delete table only tombstones the row and keeps its terms in the
 * segment until some later merge; a table with content plus the `secure-delete` option removes
 * the entries from the leaf pages at once (measured: after `forget`, `PRAGMA secure_delete` and a
 * checkpoint, neither the vocabulary nor the file's bytes hold the word). The price is the text
 * stored once more. Known residue: FTS5's `_idx` separator keys may keep a prefix of a term that
 * started a leaf page until that segment is merged again.
 *
 * Tokens. unicode61 splits text into runs of letters, digits and marks, folds case and
 * diacritics; porter then stems English words ("peanuts" and "Peanut-free" both index "peanut").
 * FTS5 stems a query's quoted terms with the same tokenizer, so the read model only has to split
 * a query as unicode61 does and drop stop words before stemming (a stop word's stem is never
 * looked up). Two inflections of one word in a query ("peanut peanuts") stay two terms: they
 * count twice towards the posting budget and weigh twice in BM25, which only prunes earlier.
 *
 * Query strategy. The query is split like FTS5's unicode61 tokenizer splits (letters, digits,
 * marks), English stop words are dropped, every remaining term is quoted (so no input is FTS5
 * syntax) and the terms are OR-ed. FTS5 scores every row a term matches (about 1 µs a posting
 * at 100 k documents), so a query's cost is the sum of its terms' document frequencies, and in
 * natural-language text a few frequent words match a large share of the memory: unpruned, p99 is
 * 27-86 ms at 100 k documents (bench/search.bench.ts). So the terms are taken rarest first while
 * their summed document frequency stays within {@link POSTING_BUDGET}; frequencies are counted
 * inside the searched range and only up to the budget (a bounded scan, ~0.05 ms a term). Rare
 * terms decide BM25's top ranks anyway: measured, the pruned top 10 shares ~79 % of its ids
 * with the unpruned top 10. When even the rarest term alone is over the budget, it is ranked
 * within its most recent {@link POSTING_BUDGET} rows only (newest content wins a query of only
 * very common words). So no query scores much more than the budget, whatever the memory's size.
 * A memory under the budget is never pruned: its ranking is plain BM25 over all terms.
 * A query may return fewer hits than the limit when its rare terms match fewer rows.
 */
import type Database from 'better-sqlite3';
import {
  MemoryError,
  isErased,
  type ContentEvent,
  type SearchHit,
  type Sequenced,
} from '../core/index.js';
import { readModelNames, type ReadModelNames } from './read-model.names.js';

/**
 * Segments of one level FTS5 lets accumulate before merging them into the next (its default: 4).
 * Fewer, larger merges make a build of the index and the search batches after appends cheaper,
 * for a few more segments read per query term (BENCHMARKS.md, rebuild R7). Set when the tables
 * are made, as every build makes them; an index made before keeps FTS5's 4.
 */
const AUTOMERGE = 8;

/** DDL for one layout's search tables (CREATE ... IF NOT EXISTS), run by the read-model schema. */
export function searchSchema(n: ReadModelNames): string {
  return `
CREATE VIRTUAL TABLE IF NOT EXISTS ${n.search_fts} USING fts5(
  text, tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO ${n.search_fts} (${n.search_fts}, rank) VALUES ('secure-delete', 1);
INSERT INTO ${n.search_fts} (${n.search_fts}, rank) VALUES ('automerge', ${AUTOMERGE});
CREATE VIRTUAL TABLE IF NOT EXISTS ${n.search_vocab} USING fts5vocab(${n.search_fts}, row);
`;
}

/** Options of {@link SearchReadModel.search}. */
export interface SearchReadModelOptions {
  /** Search the content visible right after this seq. @defaultValue now */
  readonly asOfSeq?: number;
  /** At most this many hits. @defaultValue 10 */
  readonly limit?: number;
}

/** The search read model over one connection; every memory's rows carry `mem`, an integer memory key. */
export interface SearchReadModel {
  /** Indexes a message (`speaker: content`) or a document (`name\ntext`); runs inside the caller's transaction. */
  add(mem: number, item: Sequenced<ContentEvent>): void;
  /** Best matches among content visible now or as of `asOfSeq`, best first (default limit 10). */
  search(mem: number, query: string, options?: SearchReadModelOptions): SearchHit[];
  /**
   * Removes the text of the item at `seq` from the index for good (an erasure): no trace of its
   * words may remain.
   */
  forget(mem: number, seq: number): void;
  /** Drops every row of one memory (before a rebuild). */
  clear(mem: number): void;
}

/**
 * Rows of one memory span `mem * 2^40` to `mem * 2^40 + 2^40 - 1`; seqs stay below 2^40. Rowids
 * are 64-bit, past JavaScript's safe integers, so they are handled as BigInt.
 */
const SEQ_SPAN = 2n ** 40n;
/** The largest memory key whose rowid range fits a 64-bit rowid (8,388,607 memories). */
const MAX_MEM = 2 ** 23 - 1;

/**
 * The most rows one query scores (see the header): 8,000 postings keep p99 under ~20 ms at
 * 100 k documents while the top 10 keeps ~80 % of the unpruned ids.
 */
export const POSTING_BUDGET = 8000;

/** The most terms of one query that are looked up; the rest of a long query is ignored. */
const MAX_TERMS = 16;

/** English function words: they match most text and say nothing about it. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being ' +
    'below between both but by can could did do does doing down during each few for from further ' +
    'had has have having he her here hers herself him himself his how i if in into is it its ' +
    'itself just me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were ' +
    'what when where which while who whom why will with would you your yours yourself yourselves ' +
    's t d ll m re ve don doesn didn isn aren wasn weren won can couldn shouldn wouldn'
  ).split(' '),
);

/** Runs of letters, marks and digits: what FTS5's unicode61 tokenizer keeps as one token. */
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

/** The searchable terms of a query: folded, without stop words, each once. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const [raw] of query.matchAll(TOKEN)) {
    const folded = raw.toLowerCase();
    const bare = folded.normalize('NFD').replace(/\p{M}+/gu, '');
    if (bare === '' || STOP_WORDS.has(bare)) continue;
    terms.add(folded);
    if (terms.size === MAX_TERMS) break;
  }
  return [...terms];
}

/**
 * Hits with scores a person can read: each BM25 score relative to the best hit of the answer,
 * in hundredths from 1 (the best) down to 0.01 (a hit on words most of the memory holds). BM25
 * itself is unbounded, and tiny where a term is in most of a small memory (FTS5 floors such a
 * term's weight at 1e-6), which reads as broken. The order of the hits is the ranking.
 */
export function relativeScores<T extends { readonly score: number }>(hits: readonly T[]): T[] {
  const best = Math.max(...hits.map((hit) => hit.score));
  return hits.map((hit) => ({
    ...hit,
    score: best > 0 ? Math.max(0.01, Math.round((hit.score / best) * 100) / 100) : 1,
  }));
}

/** A term as an FTS5 string: a quoted phrase is never syntax. */
const quote = (term: string): string => `"${term.replaceAll('"', '""')}"`;

function memoryRange(mem: number): { lo: bigint; hi: bigint } {
  if (!Number.isSafeInteger(mem) || mem < 0 || mem > MAX_MEM)
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Search memory key ${String(mem)} is not an integer from 0 to ${MAX_MEM}.`,
    );
  const lo = BigInt(mem) * SEQ_SPAN;
  return { lo, hi: lo + SEQ_SPAN - 1n };
}

function rowKey(mem: number, seq: number): bigint {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= Number(SEQ_SPAN))
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Search item seq ${String(seq)} is not an integer from 0 to 2^40 - 1.`,
    );
  return memoryRange(mem).lo + BigInt(seq);
}

interface Row {
  id: string;
  /** As `rm_items` codes it: 0 message, 1 document. */
  kind: number;
  seq: number;
  score: number;
}

/**
 * Prepares the search read model's statements on `db`, on one layout's tables (`names`; they
 * must exist: {@link searchSchema}).
 */
export function prepareSearchReadModel(
  db: Database.Database,
  names: ReadModelNames = readModelNames(),
): SearchReadModel {
  const { search_fts: fts, rm_items: items } = names;
  const insertText = db.prepare<[bigint, string]>(`INSERT INTO ${fts} (rowid, text) VALUES (?, ?)`);
  const deleteText = db.prepare<[bigint]>(`DELETE FROM ${fts} WHERE rowid = ?`);
  const deleteTexts = db.prepare<[bigint, bigint]>(
    `DELETE FROM ${fts} WHERE rowid BETWEEN ? AND ?`,
  );
  // FTS5 takes a configuration value as a literal only, not as a bound parameter.
  const secureDeleteOff = db.prepare(
    `INSERT INTO ${fts} (${fts}, rank) VALUES ('secure-delete', 0)`,
  );
  const secureDeleteOn = db.prepare(
    `INSERT INTO ${fts} (${fts}, rank) VALUES ('secure-delete', 1)`,
  );
  const countUpTo = db
    .prepare<[string, bigint, bigint, number], number>(
      `SELECT count(*) FROM (SELECT 1 FROM ${fts}
       WHERE ${fts} MATCH ? AND rowid BETWEEN ? AND ? LIMIT ?)`,
    )
    .pluck();
  const nthNewest = db
    .prepare<[string, bigint, bigint, number], bigint>(
      `SELECT rowid FROM ${fts} WHERE ${fts} MATCH ? AND rowid BETWEEN ? AND ?
       ORDER BY rowid DESC LIMIT 1 OFFSET ?`,
    )
    .pluck()
    .safeIntegers(true);
  // CROSS JOIN keeps FTS5 the outer loop, so it hands rows over in rank order and the
  // visibility check runs on the best candidates only.
  // The item index (rm_items, written by the same projection) says what each row is and
  // whether it was deleted by then.
  const best = db.prepare<[number, bigint, string, bigint, bigint, number, number], Row>(
    `SELECT i.id AS id, i.kind AS kind, i.seq AS seq, -f.rank AS score
     FROM ${fts} AS f CROSS JOIN ${items} AS i ON i.mem = ? AND i.seq = f.rowid - ?
     WHERE ${fts} MATCH ? AND f.rowid BETWEEN ? AND ?
       AND (i.deleted_seq IS NULL OR i.deleted_seq > ?)
     ORDER BY f.rank LIMIT ?`,
  );

  return {
    add(mem, item) {
      if (isErased(item)) return; // no words to index: an Erasure destroyed them
      const text =
        item.kind === 'message' ? `${item.speaker}: ${item.content}` : `${item.name}\n${item.text}`;
      insertText.run(rowKey(mem, item.seq), text);
    },
    search(mem, query, options = {}) {
      const { lo, hi: memoryEnd } = memoryRange(mem);
      const asOf = options.asOfSeq ?? Infinity;
      const limit = options.limit ?? 10;
      if (!(limit > 0) || !(asOf >= 0)) return [];
      const terms = queryTerms(query);
      if (terms.length === 0) return [];
      const hi = asOf >= Number(SEQ_SPAN) - 1 ? memoryEnd : lo + BigInt(Math.floor(asOf));
      const deletedAfter = Math.min(asOf, Number(SEQ_SPAN));
      const rowLimit = Number.isFinite(limit) ? Math.ceil(limit) : -1;

      const counted = terms
        .map((term) => ({
          term,
          docs: countUpTo.get(quote(term), lo, hi, POSTING_BUDGET + 1) ?? 0,
        }))
        .filter((t) => t.docs > 0)
        .sort((a, b) => a.docs - b.docs);
      const picked: string[] = [];
      let postings = 0;
      for (const { term, docs } of counted) {
        if (picked.length > 0 && postings + docs > POSTING_BUDGET) break;
        picked.push(quote(term));
        postings += docs;
      }
      if (picked.length === 0) return [];
      const from =
        postings > POSTING_BUDGET ? (nthNewest.get(picked[0]!, lo, hi, POSTING_BUDGET) ?? lo) : lo;
      return best
        .all(mem, lo, picked.join(' OR '), from, hi, deletedAfter, rowLimit)
        .map((row) => ({ ...row, kind: row.kind === 0 ? 'message' : 'document' }));
    },
    forget(mem, seq) {
      deleteText.run(rowKey(mem, seq));
    },
    clear(mem) {
      const { lo, hi } = memoryRange(mem);
      // Rows dropped for a rebuild come back from the log: no need to scrub their pages one by
      // one, which secure-delete would do at the cost of a leaf rewrite per term and row.
      secureDeleteOff.run();
      try {
        deleteTexts.run(lo, hi);
      } finally {
        secureDeleteOn.run();
      }
    },
  };
}
