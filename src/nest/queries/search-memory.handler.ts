import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { SearchResult } from '../../memory/index.js';
import { definedOptions } from '../input.js';
import { MemoryHandles } from '../memory-handles.js';
import { SearchMemoryQuery } from './search-memory.query.js';

/** Handles {@link SearchMemoryQuery} with the facade's `search`. */
@QueryHandler(SearchMemoryQuery)
export class SearchMemoryHandler implements IQueryHandler<SearchMemoryQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** The best visible matches, each with its content. */
  async execute({ memoryId, query, options }: SearchMemoryQuery): Promise<SearchResult[]> {
    const memory = await this.memories.get(memoryId);
    return memory.search(query, definedOptions(options, 'search'));
  }
}
