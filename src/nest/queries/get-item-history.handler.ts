import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ItemHistory } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetItemHistoryQuery } from './get-item-history.query.js';

/** Handles {@link GetItemHistoryQuery} with the facade's `history`. */
@QueryHandler(GetItemHistoryQuery)
export class GetItemHistoryHandler implements IQueryHandler<GetItemHistoryQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** The item's history; `EVENT_NOT_FOUND` when the id is not in the memory. */
  async execute({ memoryId, id }: GetItemHistoryQuery): Promise<ItemHistory> {
    const memory = await this.memories.get(memoryId);
    return memory.history(id);
  }
}
