import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ConsistencyProofJson } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { ProveConsistencyQuery } from './prove-consistency.query.js';

/** Handles {@link ProveConsistencyQuery} with the facade's `proveConsistency`. */
@QueryHandler(ProveConsistencyQuery)
export class ProveConsistencyHandler implements IQueryHandler<ProveConsistencyQuery> {
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** `{ from, to, path }`. */
  async execute({ memoryId, from, to }: ProveConsistencyQuery): Promise<ConsistencyProofJson> {
    const memory = await this.memories.get(memoryId);
    return memory.proveConsistency(from, to);
  }
}
