import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { MemoryState } from '../../core/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetRecallStatsQuery } from './get-recall-stats.query.js';

/** Handles {@link GetRecallStatsQuery} with the facade's `recallStats`. */
@QueryHandler(GetRecallStatsQuery)
export class GetRecallStatsHandler implements IQueryHandler<GetRecallStatsQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Per item id: how often and when it was last recalled (never-read items have no entry). */
  async execute({ memoryId }: GetRecallStatsQuery): Promise<MemoryState['recallStats']> {
    const memory = await this.memories.get(memoryId);
    return memory.recallStats();
  }
}
