import { Command } from '@nestjs/cqrs';
import type { Recall, RecallInput, Sequenced } from '../../core/index.js';

/** Records a recall the caller computed itself; refused unless every id is visible content at the append. Result: the stored event. */
export class RecordRecallCommand extends Command<Sequenced<Recall>> {
  constructor(
    /** The memory; `undefined` addresses the module's default memory. */
    readonly memoryId: string | undefined,
    /** The event fields, validated by the core factory (possibly an untyped request body). */
    readonly input: RecallInput,
  ) {
    super();
  }
}
