import { Query } from '@nestjs/cqrs';
import type { RecallMode } from '../../core/index.js';
import type { SearchResult } from '../../memory/index.js';

/** Options of {@link SearchMemoryQuery}. */
export interface SearchMemoryOptions {
  /** Search the content visible right after this seq. @defaultValue the current state */
  readonly asOfSeq?: number | undefined;
  /** At most this many results. @defaultValue the search projection's default */
  readonly limit?: number | undefined;
  /**
   * BM25 (`lexical`), vectors (`semantic`) or both fused (`hybrid`).
   * @defaultValue `hybrid` when the module has an embedder, else `lexical`
   */
  readonly mode?: RecallMode | undefined;
}

/** Inspection search over a memory's visible content; writes nothing (unlike `RecallCommand`). */
export class SearchMemoryQuery extends Query<SearchResult[]> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The search text. */
    readonly query: string,
    /** As of which seq, how many results, and by which mode. */
    readonly options: SearchMemoryOptions = {},
  ) {
    super();
  }
}
