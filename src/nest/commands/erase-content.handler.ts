import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { ErasureOutcome } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { EraseContentCommand } from './erase-content.command.js';

/** Handles {@link EraseContentCommand} with the facade's `eraseContent`. */
@CommandHandler(EraseContentCommand)
export class EraseContentHandler implements ICommandHandler<EraseContentCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the sealed store (intent, append, key destruction), returns it. */
  async execute({ memoryId, input }: EraseContentCommand): Promise<ErasureOutcome> {
    const memory = await this.memories.get(memoryId);
    return memory.eraseContent(input);
  }
}
