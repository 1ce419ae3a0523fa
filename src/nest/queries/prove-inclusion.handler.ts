import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { InclusionProofJson } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { ProveInclusionQuery } from './prove-inclusion.query.js';

/** Handles {@link ProveInclusionQuery} with the facade's `proveInclusion`. */
@QueryHandler(ProveInclusionQuery)
export class ProveInclusionHandler implements IQueryHandler<ProveInclusionQuery> {
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** `{ seq, treeSize, leaf, leafHash, path }`. */
  async execute({ memoryId, seq, size }: ProveInclusionQuery): Promise<InclusionProofJson> {
    const memory = await this.memories.get(memoryId);
    return memory.proveInclusion(seq, size);
  }
}
