import type { SearchHit } from '../core/index.js';

/** What a retriever is asked: the best `limit` items for `query` among content visible at `asOfSeq`. */
export interface RetrievalRequest {
  readonly memoryId: string;
  readonly query: string;
  readonly limit: number;
  /** The seq the recall is computed at (null: empty memory); only content visible then may be returned. */
  readonly asOfSeq: number | null;
  /** The memory's own BM25+ search, already bound to `asOfSeq`: for hybrid retrievers. */
  readonly keywordSearch: (query: string, limit: number) => SearchHit[];
}

/**
 * The retrieval port behind `recall`. BM25 is the default; plug in embeddings or a vector
 * database here. Whatever it returns, the store's guard refuses any id that is not visible
 * content at the append, so a retriever cannot smuggle deleted content into a context.
 */
export interface Retriever {
  retrieve(request: RetrievalRequest): Promise<readonly string[]> | readonly string[];
  /**
   * True when `retrieve` always returns an array at once (never a promise): recall may then run
   * it under the store's write lock, where the log cannot move under it (no retries).
   */
  readonly synchronous?: boolean;
}

/** The default retriever: BM25+ over the memory's search projection. */
export const bm25Retriever: Retriever = {
  synchronous: true,
  retrieve: ({ query, limit, keywordSearch }) => keywordSearch(query, limit).map((hit) => hit.id),
};
