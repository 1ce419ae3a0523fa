import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ErasureCleanupStatus } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetErasureCleanupQuery } from './get-erasure-cleanup.query.js';

/** Handles {@link GetErasureCleanupQuery} with the facade's `erasureCleanup`. */
@QueryHandler(GetErasureCleanupQuery)
export class GetErasureCleanupHandler implements IQueryHandler<GetErasureCleanupQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** `done`, or `pending` with the reason and since when. */
  async execute({ memoryId }: GetErasureCleanupQuery): Promise<ErasureCleanupStatus> {
    const memory = await this.memories.get(memoryId);
    return memory.erasureCleanup();
  }
}
