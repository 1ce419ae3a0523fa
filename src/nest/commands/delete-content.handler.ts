import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Deletion, Sequenced } from '../../core/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { DeleteContentCommand } from './delete-content.command.js';

/** Handles {@link DeleteContentCommand} with the facade's `deleteContent`. */
@CommandHandler(DeleteContentCommand)
export class DeleteContentHandler implements ICommandHandler<DeleteContentCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the store's guard, returns the stored event. */
  async execute({ memoryId, input }: DeleteContentCommand): Promise<Sequenced<Deletion>> {
    const memory = await this.memories.get(memoryId);
    return memory.deleteContent(input);
  }
}
