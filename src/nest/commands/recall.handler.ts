import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RecallResult } from '../../memory/index.js';
import { definedOptions } from '../input.js';
import { MemoryHandles } from '../memory-handles.js';
import { RecallCommand } from './recall.command.js';

/** Handles {@link RecallCommand} with the facade's `recall`. */
@CommandHandler(RecallCommand)
export class RecallHandler implements ICommandHandler<RecallCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Returns the Recall on record and the items it put in the context. */
  async execute({ memoryId, request }: RecallCommand): Promise<RecallResult> {
    const memory = await this.memories.get(memoryId);
    // The facade checks the query (and the request's shape) with the Recall event's own rule.
    return memory.recall({ ...definedOptions(request, 'recall'), query: request.query });
  }
}
