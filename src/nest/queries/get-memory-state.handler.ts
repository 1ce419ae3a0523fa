import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { StatePage } from '../../memory/index.js';
import { definedOptions } from '../input.js';
import { MemoryHandles } from '../memory-handles.js';
import { GetMemoryStateQuery } from './get-memory-state.query.js';

/** Handles {@link GetMemoryStateQuery} with the facade's `statePage`. */
@QueryHandler(GetMemoryStateQuery)
export class GetMemoryStateHandler implements IQueryHandler<GetMemoryStateQuery> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** The requested page of the state. */
  async execute({ memoryId, options }: GetMemoryStateQuery): Promise<StatePage> {
    const memory = await this.memories.get(memoryId);
    return memory.statePage(definedOptions(options, 'state query'));
  }
}
