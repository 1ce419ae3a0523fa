import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Document, Sequenced } from '../../core/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { AddDocumentCommand } from './add-document.command.js';

/** Handles {@link AddDocumentCommand} with the facade's `addDocument`. */
@CommandHandler(AddDocumentCommand)
export class AddDocumentHandler implements ICommandHandler<AddDocumentCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the store's guard, returns the stored event. */
  async execute({ memoryId, input }: AddDocumentCommand): Promise<Sequenced<Document>> {
    const memory = await this.memories.get(memoryId);
    return memory.addDocument(input);
  }
}
