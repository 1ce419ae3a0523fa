import type { ContentEvent, RecallMode, Sequenced } from '../core/index.js';
import type { MemoryReadModel } from '../read-models/index.js';
import type { MemorySettings, SearchResult } from './memory.types.js';
import { rankedHits } from './retriever.js';
import { modeOf, prepareRetrieval, vectorSearchOf } from './semantic-retrieval.js';

/** Where an inspection search runs: one memory, its read models, the memledger's settings. */
export interface SearchScope {
  readonly memoryId: string;
  readonly models: MemoryReadModel;
  readonly settings: MemorySettings;
}

/**
 * The inspection search (writes nothing): the best visible items now or as of `asOfSeq`, by
 * BM25, vectors or both fused, each with its content. Like a recall, it embeds what the vectors
 * lack (bounded) and its query first, so a writer finds its own writes.
 */
export async function inspectionSearch(
  { memoryId, models, settings }: SearchScope,
  query: string,
  options: { readonly asOfSeq?: number; readonly limit?: number; readonly mode?: RecallMode },
): Promise<SearchResult[]> {
  const { semantic } = settings;
  const prepared = await prepareRetrieval(semantic, models, query, modeOf(options.mode, semantic));
  const head = await models.catchUpSearch();
  const { db, mem } = models;
  const asOfSeq = Math.min(options.asOfSeq ?? head, head);
  return db.read(() => {
    const { hits } = rankedHits({
      memoryId,
      query,
      limit: options.limit ?? 10,
      asOfSeq,
      keywordSearch: (text, max) => db.search.search(mem, text, { limit: max, asOfSeq }),
      mode: prepared.mode,
      vectorSearch: vectorSearchOf(semantic, models, prepared, asOfSeq),
      ...(semantic ? { fusion: semantic.fusion } : {}),
    });
    const items = db.queries.events<Sequenced<ContentEvent>>(
      mem,
      hits.map((hit) => hit.seq),
    );
    return hits.map((hit, i) => ({ ...hit, item: items[i]! }));
  });
}
