import { Command } from '@nestjs/cqrs';
import type { Message, MessageInput, Sequenced } from '../../core/index.js';

/** Records a message in a memory. Result: the stored event. */
export class RecordMessageCommand extends Command<Sequenced<Message>> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields, validated by the core factory (possibly an untyped request body). */
    readonly input: MessageInput,
  ) {
    super();
  }
}
