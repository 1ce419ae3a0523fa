import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Memledger } from '../../memory/index.js';
import { MEMLEDGER } from '../memory.tokens.js';
import { ListMemoriesQuery } from './list-memories.query.js';

/** Handles {@link ListMemoriesQuery} with the facade's `memoryIds`. */
@QueryHandler(ListMemoriesQuery)
export class ListMemoriesHandler implements IQueryHandler<ListMemoriesQuery> {
  constructor(@Inject(MEMLEDGER) private readonly memledger: Memledger) {}

  /** The store's memory ids. */
  async execute(): Promise<string[]> {
    return this.memledger.memoryIds();
  }
}
