import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Sequenced } from '../../core/index.js';
import { STATE_PAGE_BYTES } from '../../memory/index.js';
import { readRange } from '../input.js';
import { MemoryHandles } from '../memory-handles.js';
import { ReadEventsQuery } from './read-events.query.js';

/** Handles {@link ReadEventsQuery} with the facade's `readEvents`. */
@QueryHandler(ReadEventsQuery)
export class ReadEventsHandler implements IQueryHandler<ReadEventsQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /**
   * The events of the checked range, cut short at the page byte budget (at least one event):
   * the next page starts at the last seq + 1.
   */
  async execute({ memoryId, options }: ReadEventsQuery): Promise<Sequenced[]> {
    const range = readRange(options);
    const memory = await this.memories.get(memoryId);
    return memory.readEvents({ ...range, byteBudget: STATE_PAGE_BYTES });
  }
}
