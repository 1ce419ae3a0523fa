import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Deletion, Sequenced } from '../../core/index.js';
import type { DeletionAndErasure } from '../../memory/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { DeleteContentCommand } from './delete-content.command.js';

/** Handles {@link DeleteContentCommand} with the facade's `deleteContent` or `deleteAndErase`. */
@CommandHandler(DeleteContentCommand)
export class DeleteContentHandler implements ICommandHandler<DeleteContentCommand<boolean>> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the store's guard, returns the stored event(s). */
  async execute({
    memoryId,
    input,
    options,
  }: DeleteContentCommand<boolean>): Promise<Sequenced<Deletion> | DeletionAndErasure> {
    const memory = await this.memories.get(memoryId);
    // `options` may come from plain JavaScript: only a literal true erases.
    return options?.erase === true ? memory.deleteAndErase(input) : memory.deleteContent(input);
  }
}
