import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Recall, Sequenced } from '../../core/index.js';
import { MemoryHandles } from '../memory-handles.js';
import { RecordRecallCommand } from './record-recall.command.js';

/** Handles {@link RecordRecallCommand} with the facade's `recordRecall`. */
@CommandHandler(RecordRecallCommand)
export class RecordRecallHandler implements ICommandHandler<RecordRecallCommand> {
  // Explicit tokens: the module also works where no decorator metadata is emitted (esbuild, tsx).
  constructor(@Inject(MemoryHandles) private readonly memories: MemoryHandles) {}

  /** Validates, appends through the store's guard, returns the stored event. */
  async execute({ memoryId, input }: RecordRecallCommand): Promise<Sequenced<Recall>> {
    const memory = await this.memories.get(memoryId);
    return memory.recordRecall(input);
  }
}
