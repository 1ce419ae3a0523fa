import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { EventLookup } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetEventQuery } from './get-event.query.js';

/** Handles {@link GetEventQuery} with the facade's `getEvent`. */
@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** The event, whether it was deleted, and by which Deletion. */
  async execute({ memoryId, id }: GetEventQuery): Promise<EventLookup> {
    const memory = await this.memories.get(memoryId);
    return memory.getEvent(id);
  }
}
