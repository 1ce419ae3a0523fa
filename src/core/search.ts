/**
 * Full-text search over a memory's content (BM25+, via MiniSearch: exact removal, no I/O, runs
 * in the browser too). The index holds all content ever written with the seq that wrote it and
 * the seq that deleted it, so "as of seq n" is a filter and deleted content never matches at or
 * after its deletion.
 */
import MiniSearch from 'minisearch';
import type { ContentEvent, Sequenced } from './events.js';

/** One search hit. */
export interface SearchHit {
  readonly id: string;
  readonly kind: ContentEvent['kind'];
  readonly seq: number;
  /** BM25+ relevance; higher is better. */
  readonly score: number;
}

/** Options of {@link SearchIndex.search}. */
export interface SearchOptions {
  /** Search the content visible right after this seq. @defaultValue now */
  readonly asOfSeq?: number;
  /** At most this many hits. @defaultValue 10 */
  readonly limit?: number;
}

/** A search index fed event by event. */
export interface SearchIndex {
  /** Indexes a message or a document. */
  add(item: Sequenced<ContentEvent>): void;
  /** Records that `id` was deleted at `seq`; it stops matching from that seq on. */
  markDeleted(id: string, seq: number): void;
  /** The best matches for `query` among visible content, best first. */
  search(query: string, options?: SearchOptions): SearchHit[];
  /** How many items were ever indexed. */
  readonly size: number;
  /** A JSON-safe copy of the index, for snapshots; {@link createSearchIndex} takes it back. */
  toSnapshot(): SearchIndexSnapshot;
}

/** A serialized search index. */
export interface SearchIndexSnapshot {
  readonly engine: unknown;
  readonly written: readonly (readonly [string, { kind: ContentEvent['kind']; seq: number }])[];
  readonly deletedAt: readonly (readonly [string, number])[];
}

interface Indexed {
  id: string;
  kind: ContentEvent['kind'];
  seq: number;
  text: string;
}

const ENGINE_OPTIONS = { fields: ['text'], storeFields: [], idField: 'id' };

/** Creates a search index, empty or from a snapshot. */
export function createSearchIndex(from?: SearchIndexSnapshot): SearchIndex {
  const engine = from
    ? MiniSearch.loadJS<Indexed>(
        from.engine as Parameters<typeof MiniSearch.loadJS>[0],
        ENGINE_OPTIONS,
      )
    : new MiniSearch<Indexed>(ENGINE_OPTIONS);
  const written = new Map(from?.written ?? []);
  const deletedAt = new Map(from?.deletedAt ?? []);

  return {
    add(item) {
      const text =
        item.kind === 'message' ? `${item.speaker}: ${item.content}` : `${item.name}\n${item.text}`;
      engine.add({ id: item.id, kind: item.kind, seq: item.seq, text });
      written.set(item.id, { kind: item.kind, seq: item.seq });
    },
    markDeleted(id, seq) {
      if (!deletedAt.has(id)) deletedAt.set(id, seq);
    },
    search(query, options = {}) {
      const asOf = options.asOfSeq ?? Infinity;
      const limit = options.limit ?? 10;
      const visible = (id: string): boolean => {
        const entry = written.get(id);
        const deleted = deletedAt.get(id);
        return (
          entry !== undefined && entry.seq <= asOf && (deleted === undefined || deleted > asOf)
        );
      };
      const hits: SearchHit[] = [];
      if (!(limit > 0)) return hits;
      // Searching "now" with nothing deleted (the common case) needs no per-hit filter.
      const filter =
        asOf === Infinity && deletedAt.size === 0
          ? undefined
          : (r: { id: unknown }) => visible(String(r.id));
      for (const result of engine.search(query, filter ? { filter } : {})) {
        const entry = written.get(String(result.id))!;
        hits.push({ id: String(result.id), kind: entry.kind, seq: entry.seq, score: result.score });
        if (hits.length >= limit) break;
      }
      return hits;
    },
    get size() {
      return written.size;
    },
    toSnapshot() {
      return { engine: engine.toJSON(), written: [...written], deletedAt: [...deletedAt] };
    },
  };
}
