import {
  createSearchIndex,
  isContent,
  type SearchHit,
  type SearchIndex,
  type SearchIndexSnapshot,
  type SearchOptions,
  type Sequenced,
} from '../core/index.js';
import type { Projection } from './projection.js';

/**
 * The search read model: every piece of content ever written, with the seq that wrote it and the
 * seq that deleted it, so "as of seq n" search is a filter (BM25+ via the core index).
 */
export class SearchProjection implements Projection {
  readonly name = 'search';
  private index: SearchIndex = createSearchIndex();

  apply(event: Sequenced): void {
    if (isContent(event)) this.index.add(event);
    else if (event.kind === 'deletion')
      for (const id of event.targets) this.index.markDeleted(id, event.seq);
  }

  /** Best matches among the content visible now, or as of `options.asOfSeq`. */
  search(query: string, options?: SearchOptions): SearchHit[] {
    return this.index.search(query, options);
  }

  snapshot(): SearchIndexSnapshot {
    return this.index.toSnapshot();
  }

  restore(snapshot: unknown): void {
    this.index = createSearchIndex(snapshot as SearchIndexSnapshot);
  }
}
