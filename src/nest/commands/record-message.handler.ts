import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Message, Sequenced } from '../../core/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { RecordMessageCommand } from './record-message.command.js';

/** Handles {@link RecordMessageCommand} with the facade's `recordMessage`. */
@CommandHandler(RecordMessageCommand)
export class RecordMessageHandler implements ICommandHandler<RecordMessageCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the store's guard, returns the stored event. */
  async execute({ memoryId, input }: RecordMessageCommand): Promise<Sequenced<Message>> {
    const memory = await this.memories.get(memoryId);
    return memory.recordMessage(input);
  }
}
