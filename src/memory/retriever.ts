import {
  DEFAULT_FUSION,
  EXTERNAL_RETRIEVAL,
  LEXICAL_RETRIEVAL,
  reciprocalRankFusion,
  type Fusion,
  type RecallMode,
  type Retrieval,
  type SearchHit,
  type VectorSearchRecord,
} from '../core/index.js';

/** The memory's vector search, bound to the request's seq, with the query already embedded. */
export interface VectorSearch {
  /** The nearest visible items, best first (score: cosine similarity). */
  readonly search: (limit: number) => SearchHit[];
  /** The model whose vectors it searches, and their length (recorded on the Recall). */
  readonly model: string;
  readonly dimensions: number;
  /** How the vectors are searched: exact, or quantized and in cells (recorded on the Recall). */
  readonly vectors: VectorSearchRecord;
}

/** What a retriever is asked: the best `limit` items for `query` among content visible at `asOfSeq`. */
export interface RetrievalRequest {
  readonly memoryId: string;
  readonly query: string;
  readonly limit: number;
  /** The seq the recall is computed at (null: empty memory); only content visible then may be returned. */
  readonly asOfSeq: number | null;
  /** The memory's own BM25+ search, already bound to `asOfSeq`: for hybrid retrievers. */
  readonly keywordSearch: (query: string, limit: number) => SearchHit[];
  /** The mode the recall runs in (the request's, or lexical when vectors cannot serve). @defaultValue 'lexical' */
  readonly mode?: RecallMode;
  /** The vector search, when the mode is semantic or hybrid and vectors serve. */
  readonly vectorSearch?: VectorSearch | undefined;
  /** How hybrid mode fuses the two lists. @defaultValue RRF with k 60, weights 1 and 1 */
  readonly fusion?: Fusion;
}

/** What a retriever chose and how, to be recorded on the Recall. */
export interface Retrieved {
  readonly ids: readonly string[];
  readonly retrieval: Retrieval;
}

/** A retriever's answer: ids alone (recorded as `external` retrieval) or ids with their retrieval. */
export type RetrieverAnswer = readonly string[] | Retrieved;

/**
 * The retrieval port behind `recall`. The standard retriever runs BM25, vectors or both fused;
 * plug in a vector database here. Whatever it returns, the store's guard refuses any id that is
 * not visible content at the append, so a retriever cannot smuggle deleted content into a context.
 */
export interface Retriever {
  retrieve(request: RetrievalRequest): Promise<RetrieverAnswer> | RetrieverAnswer;
  /**
   * True when `retrieve` always returns at once (never a promise): recall may then run it under
   * the store's write lock, where the log cannot move under it (no retries).
   */
  readonly synchronous?: boolean;
}

/** Candidates each list contributes to a hybrid ranking of `limit` items. */
export function hybridCandidates(limit: number): number {
  return Math.min(100, Math.max(20, limit * 4));
}

/**
 * The hits of a mode, best first, and how they were retrieved: BM25 (`lexical`), vectors
 * (`semantic`), or both fused by RRF (`hybrid`, scores are the fused scores). Without a vector
 * search the mode is lexical.
 */
export function rankedHits(request: RetrievalRequest): { hits: SearchHit[]; retrieval: Retrieval } {
  const { query, limit, keywordSearch, vectorSearch } = request;
  const mode = vectorSearch ? (request.mode ?? 'lexical') : 'lexical';
  if (mode === 'lexical')
    return { hits: keywordSearch(query, limit), retrieval: LEXICAL_RETRIEVAL };
  const { model, dimensions, vectors } = vectorSearch!;
  if (mode === 'semantic')
    return {
      hits: vectorSearch!.search(limit),
      retrieval: { method: 'semantic', model, dimensions, fusion: null, vectors },
    };
  const fusion = request.fusion ?? DEFAULT_FUSION;
  const n = hybridCandidates(limit);
  const lexical = keywordSearch(query, n);
  const semantic = vectorSearch!.search(n);
  const byId = new Map([...semantic, ...lexical].map((hit) => [hit.id, hit]));
  const fused = reciprocalRankFusion(
    [
      { ids: lexical.map((hit) => hit.id), weight: fusion.weights.lexical },
      { ids: semantic.map((hit) => hit.id), weight: fusion.weights.semantic },
    ],
    fusion.k,
  );
  return {
    hits: fused.slice(0, limit).map(({ id, score }) => ({ ...byId.get(id)!, score })),
    retrieval: { method: 'hybrid', model, dimensions, fusion, vectors },
  };
}

/** The standard retriever: BM25, vectors or both fused, as the request's mode says. */
export const standardRetriever: Retriever = {
  synchronous: true,
  retrieve: (request) => {
    const { hits, retrieval } = rankedHits(request);
    return { ids: hits.map((hit) => hit.id), retrieval };
  },
};

/** BM25+ over the memory's search projection, whatever the mode asked. */
export const bm25Retriever: Retriever = {
  synchronous: true,
  retrieve: ({ query, limit, keywordSearch }) => ({
    ids: keywordSearch(query, limit).map((hit) => hit.id),
    retrieval: LEXICAL_RETRIEVAL,
  }),
};

/** The ids and retrieval of a retriever's answer (bare ids: the application's own retrieval). */
export function retrievedOf(answer: RetrieverAnswer): Retrieved {
  return Array.isArray(answer)
    ? { ids: answer as readonly string[], retrieval: EXTERNAL_RETRIEVAL }
    : (answer as Retrieved);
}
