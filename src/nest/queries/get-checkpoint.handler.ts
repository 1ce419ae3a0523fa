import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { CheckpointNote } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetCheckpointQuery } from './get-checkpoint.query.js';

/** Handles {@link GetCheckpointQuery} with the facade's `checkpoint`. */
@QueryHandler(GetCheckpointQuery)
export class GetCheckpointHandler implements IQueryHandler<GetCheckpointQuery> {
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** The checkpoint note and what it says. */
  async execute({ memoryId, size }: GetCheckpointQuery): Promise<CheckpointNote> {
    const memory = await this.memories.get(memoryId);
    return memory.checkpoint(size === undefined ? {} : { size });
  }
}
